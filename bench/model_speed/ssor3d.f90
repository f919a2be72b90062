! ssor3d.f90 — the benchmark program of `augur model`'s speed (bench/model_bench.sh
! --speed): an implicit solver of the kind CFD codes are, written for this bench from
! the textbook form of the lower-upper symmetric Gauss-Seidel (LU-SSOR) scheme of
! Yoon and Jameson (AIAA J. 26(9), 1988): five coupled unknowns per point of an
! N x N x N grid, u_t + A u_x + B u_y + C u_z = nu lap(u) + f, steady state by
! pseudo-time steps; each step forms the residual (central differences plus
! fourth-difference dissipation), then solves (D + L) D^-1 (D + U) du = -dt r with a
! forward sweep over increasing (i, j, k) and a backward one over decreasing, each
! point a 5 x 5 block solve (Gaussian elimination with partial pivoting).  The
! coefficient matrices depend on the local state, as a linearised flux does.  Many
! small loops, as in real solvers: it has a few thousand memory instructions in
! hundreds of loops, which is what makes `augur model` slow.
! usage: ssor3d N       prints "ssor3d N checksum"
program ssor3d
    implicit none
    integer, parameter :: nv = 5, nsteps = 3
    integer :: n, step
    character(len=32) :: arg
    double precision, allocatable :: u(:, :, :, :), r(:, :, :, :), du(:, :, :, :), f(:, :, :, :)
    double precision :: dt, h, nu, rnorm(nv), enorm(nv)

    if (command_argument_count() /= 1) then
        write (0, '(a)') 'usage: ssor3d N'
        stop 2
    end if
    call get_command_argument(1, arg)
    read (arg, *) n
    if (n < 5) then
        write (0, '(a)') 'ssor3d: N must be >= 5'
        stop 2
    end if
    allocate (u(nv, n, n, n), r(nv, n, n, n), du(nv, n, n, n), f(nv, n, n, n))
    h = 1d0 / dble(n - 1)
    nu = 0.05d0
    dt = 0.4d0 * h
    call initial(u, n, h)
    call forcing(f, n, h)
    do step = 1, nsteps
        call residual(u, f, r, n, h, nu)
        call sweep_lower(u, r, du, n, h, nu, dt)
        call sweep_upper(u, du, n, h, nu, dt)
        call update(u, du, n)
        call boundary(u, n, h)
    end do
    call residual(u, f, r, n, h, nu)
    call norms(r, n, rnorm)
    call error_norms(u, n, h, enorm)
    write (*, '(a, i0, 1x, es22.14)') 'ssor3d ', n, sum(rnorm) + sum(enorm)
contains

    ! The exact steady solution the forcing is made for, component m at (x, y, z).
    pure function exact(m, x, y, z) result(v)
        integer, intent(in) :: m
        double precision, intent(in) :: x, y, z
        double precision :: v
        v = 1d0 + 0.1d0 * m + 0.2d0 * x * (1 - x) + 0.3d0 * y * y + 0.1d0 * m * z * (1 + x * y)
    end function

    subroutine initial(u, n, h)
        integer, intent(in) :: n
        double precision, intent(out) :: u(nv, n, n, n)
        double precision, intent(in) :: h
        integer :: i, j, k, m
        do k = 1, n
            do j = 1, n
                do i = 1, n
                    do m = 1, nv
                        u(m, i, j, k) = 1d0 + 0.1d0 * m
                    end do
                end do
            end do
        end do
        call boundary(u, n, h)
    end subroutine

    ! Dirichlet values of the exact solution on the six faces.
    subroutine boundary(u, n, h)
        integer, intent(in) :: n
        double precision, intent(inout) :: u(nv, n, n, n)
        double precision, intent(in) :: h
        integer :: i, j, k, m
        do k = 1, n
            do j = 1, n
                do m = 1, nv
                    u(m, 1, j, k) = exact(m, 0d0, (j - 1) * h, (k - 1) * h)
                    u(m, n, j, k) = exact(m, 1d0, (j - 1) * h, (k - 1) * h)
                end do
            end do
        end do
        do k = 1, n
            do i = 1, n
                do m = 1, nv
                    u(m, i, 1, k) = exact(m, (i - 1) * h, 0d0, (k - 1) * h)
                    u(m, i, n, k) = exact(m, (i - 1) * h, 1d0, (k - 1) * h)
                end do
            end do
        end do
        do j = 1, n
            do i = 1, n
                do m = 1, nv
                    u(m, i, j, 1) = exact(m, (i - 1) * h, (j - 1) * h, 0d0)
                    u(m, i, j, n) = exact(m, (i - 1) * h, (j - 1) * h, 1d0)
                end do
            end do
        end do
    end subroutine

    subroutine forcing(f, n, h)
        integer, intent(in) :: n
        double precision, intent(out) :: f(nv, n, n, n)
        double precision, intent(in) :: h
        integer :: i, j, k, m
        double precision :: x, y, z
        do k = 1, n
            z = (k - 1) * h
            do j = 1, n
                y = (j - 1) * h
                do i = 1, n
                    x = (i - 1) * h
                    do m = 1, nv
                        f(m, i, j, k) = 0.2d0 * (1 - 2 * x) + 0.6d0 * y + 0.1d0 * m * (1 + x * y) &
                                        - 0.05d0 * (-0.4d0 + 0.6d0) + 0.01d0 * m * z
                    end do
                end do
            end do
        end do
    end subroutine

    ! The flux Jacobian in direction d at state v: a linearised, state-dependent
    ! coupling of the five unknowns.
    pure subroutine jacobian(v, d, a)
        double precision, intent(in) :: v(nv)
        integer, intent(in) :: d
        double precision, intent(out) :: a(nv, nv)
        integer :: p, q
        double precision :: s
        s = v(1) + 0.5d0 * v(d + 1)
        do q = 1, nv
            do p = 1, nv
                a(p, q) = 0.02d0 * (v(p) - v(q)) / (1 + p + q)
            end do
            a(q, q) = a(q, q) + s * 0.3d0
        end do
        a(1, d + 1) = a(1, d + 1) + 1d0
        a(d + 1, 1) = a(d + 1, 1) + 0.5d0 * v(d + 1) / v(1)
    end subroutine

    ! r = f - (A u_x + B u_y + C u_z) + nu lap(u) - dissipation, at inner points.
    subroutine residual(u, f, r, n, h, nu)
        integer, intent(in) :: n
        double precision, intent(in) :: u(nv, n, n, n), f(nv, n, n, n), h, nu
        double precision, intent(out) :: r(nv, n, n, n)
        integer :: i, j, k, m, q
        double precision :: a(nv, nv), b(nv, nv), c(nv, nv), eps
        eps = 0.01d0
        r = 0d0
        do k = 2, n - 1
            do j = 2, n - 1
                do i = 2, n - 1
                    call jacobian(u(:, i, j, k), 1, a)
                    call jacobian(u(:, i, j, k), 2, b)
                    call jacobian(u(:, i, j, k), 3, c)
                    do m = 1, nv
                        r(m, i, j, k) = f(m, i, j, k) + nu * (u(m, i + 1, j, k) + u(m, i - 1, j, k) &
                                        + u(m, i, j + 1, k) + u(m, i, j - 1, k) + u(m, i, j, k + 1) &
                                        + u(m, i, j, k - 1) - 6 * u(m, i, j, k)) / (h * h)
                        do q = 1, nv
                            r(m, i, j, k) = r(m, i, j, k) - (a(m, q) * (u(q, i + 1, j, k) - u(q, i - 1, j, k)) &
                                            + b(m, q) * (u(q, i, j + 1, k) - u(q, i, j - 1, k)) &
                                            + c(m, q) * (u(q, i, j, k + 1) - u(q, i, j, k - 1))) / (2 * h)
                        end do
                    end do
                end do
            end do
        end do
        ! fourth-difference dissipation in each direction, where the stencil fits
        do k = 3, n - 2
            do j = 3, n - 2
                do i = 3, n - 2
                    do m = 1, nv
                        r(m, i, j, k) = r(m, i, j, k) - eps * (u(m, i + 2, j, k) - 4 * u(m, i + 1, j, k) &
                                        + 6 * u(m, i, j, k) - 4 * u(m, i - 1, j, k) + u(m, i - 2, j, k))
                        r(m, i, j, k) = r(m, i, j, k) - eps * (u(m, i, j + 2, k) - 4 * u(m, i, j + 1, k) &
                                        + 6 * u(m, i, j, k) - 4 * u(m, i, j - 1, k) + u(m, i, j - 2, k))
                        r(m, i, j, k) = r(m, i, j, k) - eps * (u(m, i, j, k + 2) - 4 * u(m, i, j, k + 1) &
                                        + 6 * u(m, i, j, k) - 4 * u(m, i, j, k - 1) + u(m, i, j, k - 2))
                    end do
                end do
            end do
        end do
    end subroutine

    ! The diagonal block D = I/dt + (spectral radii + 6 nu / h^2) I + the local
    ! coupling, at state v.
    pure subroutine diagonal(v, h, nu, dt, d)
        double precision, intent(in) :: v(nv), h, nu, dt
        double precision, intent(out) :: d(nv, nv)
        double precision :: a(nv, nv)
        integer :: p
        call jacobian(v, 1, a)
        d = 0.1d0 * a
        do p = 1, nv
            d(p, p) = d(p, p) + 1 / dt + 6 * nu / (h * h) + 3 * abs(v(1)) / h
        end do
    end subroutine

    ! Solve d x = b (5 x 5) by Gaussian elimination with partial pivoting; b becomes x.
    pure subroutine block_solve(d, b)
        double precision, intent(inout) :: d(nv, nv), b(nv)
        integer :: p, q, piv, col
        double precision :: t, row(nv)
        do col = 1, nv
            piv = col
            do p = col + 1, nv
                if (abs(d(p, col)) > abs(d(piv, col))) piv = p
            end do
            if (piv /= col) then
                row = d(col, :)
                d(col, :) = d(piv, :)
                d(piv, :) = row
                t = b(col)
                b(col) = b(piv)
                b(piv) = t
            end if
            do p = col + 1, nv
                t = d(p, col) / d(col, col)
                do q = col, nv
                    d(p, q) = d(p, q) - t * d(col, q)
                end do
                b(p) = b(p) - t * b(col)
            end do
        end do
        do p = nv, 1, -1
            t = b(p)
            do q = p + 1, nv
                t = t - d(p, q) * b(q)
            end do
            b(p) = t / d(p, p)
        end do
    end subroutine

    ! Forward sweep: (D + L) du* = dt r, over increasing i, j, k.
    subroutine sweep_lower(u, r, du, n, h, nu, dt)
        integer, intent(in) :: n
        double precision, intent(in) :: u(nv, n, n, n), r(nv, n, n, n), h, nu, dt
        double precision, intent(out) :: du(nv, n, n, n)
        integer :: i, j, k, m, q
        double precision :: d(nv, nv), a(nv, nv), b(nv, nv), c(nv, nv), rhs(nv), cl
        du = 0d0
        cl = nu / (h * h)
        do k = 2, n - 1
            do j = 2, n - 1
                do i = 2, n - 1
                    call jacobian(u(:, i - 1, j, k), 1, a)
                    call jacobian(u(:, i, j - 1, k), 2, b)
                    call jacobian(u(:, i, j, k - 1), 3, c)
                    do m = 1, nv
                        rhs(m) = r(m, i, j, k) + cl * (du(m, i - 1, j, k) + du(m, i, j - 1, k) + du(m, i, j, k - 1))
                        do q = 1, nv
                            rhs(m) = rhs(m) + 0.5d0 / h * (a(m, q) * du(q, i - 1, j, k) + b(m, q) * du(q, i, j - 1, k) &
                                                           + c(m, q) * du(q, i, j, k - 1))
                        end do
                    end do
                    call diagonal(u(:, i, j, k), h, nu, dt, d)
                    call block_solve(d, rhs)
                    du(:, i, j, k) = rhs
                end do
            end do
        end do
    end subroutine

    ! Backward sweep: (D + U) du = D du*, over decreasing i, j, k.
    subroutine sweep_upper(u, du, n, h, nu, dt)
        integer, intent(in) :: n
        double precision, intent(in) :: u(nv, n, n, n), h, nu, dt
        double precision, intent(inout) :: du(nv, n, n, n)
        integer :: i, j, k, m, q
        double precision :: d(nv, nv), a(nv, nv), b(nv, nv), c(nv, nv), rhs(nv), cl
        cl = nu / (h * h)
        do k = n - 1, 2, -1
            do j = n - 1, 2, -1
                do i = n - 1, 2, -1
                    call diagonal(u(:, i, j, k), h, nu, dt, d)
                    call jacobian(u(:, i + 1, j, k), 1, a)
                    call jacobian(u(:, i, j + 1, k), 2, b)
                    call jacobian(u(:, i, j, k + 1), 3, c)
                    do m = 1, nv
                        rhs(m) = cl * (du(m, i + 1, j, k) + du(m, i, j + 1, k) + du(m, i, j, k + 1))
                        do q = 1, nv
                            rhs(m) = rhs(m) + d(m, q) * du(q, i, j, k) &
                                     - 0.5d0 / h * (a(m, q) * du(q, i + 1, j, k) + b(m, q) * du(q, i, j + 1, k) &
                                                    + c(m, q) * du(q, i, j, k + 1))
                        end do
                    end do
                    call block_solve(d, rhs)
                    du(:, i, j, k) = rhs
                end do
            end do
        end do
    end subroutine

    subroutine update(u, du, n)
        integer, intent(in) :: n
        double precision, intent(inout) :: u(nv, n, n, n)
        double precision, intent(in) :: du(nv, n, n, n)
        integer :: i, j, k, m
        do k = 2, n - 1
            do j = 2, n - 1
                do i = 2, n - 1
                    do m = 1, nv
                        u(m, i, j, k) = u(m, i, j, k) + 0.8d0 * du(m, i, j, k)
                    end do
                end do
            end do
        end do
    end subroutine

    ! Root-mean-square residual of each unknown.
    subroutine norms(r, n, rn)
        integer, intent(in) :: n
        double precision, intent(in) :: r(nv, n, n, n)
        double precision, intent(out) :: rn(nv)
        integer :: i, j, k, m
        rn = 0d0
        do k = 2, n - 1
            do j = 2, n - 1
                do i = 2, n - 1
                    do m = 1, nv
                        rn(m) = rn(m) + r(m, i, j, k)**2
                    end do
                end do
            end do
        end do
        rn = sqrt(rn / dble(n - 2)**3)
    end subroutine

    ! Root-mean-square distance of each unknown from the exact solution.
    subroutine error_norms(u, n, h, en)
        integer, intent(in) :: n
        double precision, intent(in) :: u(nv, n, n, n), h
        double precision, intent(out) :: en(nv)
        integer :: i, j, k, m
        en = 0d0
        do k = 1, n
            do j = 1, n
                do i = 1, n
                    do m = 1, nv
                        en(m) = en(m) + (u(m, i, j, k) - exact(m, (i - 1) * h, (j - 1) * h, (k - 1) * h))**2
                    end do
                end do
            end do
        end do
        en = sqrt(en / dble(n)**3)
    end subroutine
end program
