! sweep3d_sn.f90 — the second benchmark program of `augur model`'s speed (bench/model_bench.sh
! --speed): a multigroup discrete-ordinates (S_N) neutron transport solver on an N x N x N
! grid, written for this bench from the textbook form of the method (Lewis and Miller,
! "Computational Methods of Neutron Transport", 1984, ch. 3-4): level-symmetric S4
! quadrature (3 directions per octant), diamond differencing with the negative-flux
! fix-up, sweeps of the eight octants in the directions of flight, source iteration with
! isotropic within-group and down-scattering, vacuum boundaries, and the tallies a real
! code keeps (scalar flux and current moments, face leakages, absorption, balance, the
! fix-ups made).  Many small loops and distinct code paths, as in production transport
! codes, so that it has thousands of memory instructions in hundreds of loops.
! usage: sweep3d_sn N       prints "sweep3d_sn N checksum"
program sweep3d_sn
    implicit none
    integer, parameter :: ng = 3, nd = 3, noct = 8, nit = 3
    integer :: n, it, g
    character(len=32) :: arg
    double precision, allocatable :: phi(:, :, :, :), phiold(:, :, :, :), cur(:, :, :, :, :), q(:, :, :, :)
    double precision, allocatable :: sigt(:, :, :, :), sigs(:, :, :, :, :), src(:, :, :, :)
    double precision :: mu(nd), eta(nd), xi(nd), wt(nd), h, leak(6, ng), absorb(ng), change
    integer :: fixups(ng)

    if (command_argument_count() /= 1) then
        write (0, '(a)') 'usage: sweep3d_sn N'
        stop 2
    end if
    call get_command_argument(1, arg)
    read (arg, *) n
    if (n < 4) then
        write (0, '(a)') 'sweep3d_sn: N must be >= 4'
        stop 2
    end if
    allocate (phi(n, n, n, ng), phiold(n, n, n, ng), cur(3, n, n, n, ng), q(n, n, n, ng))
    allocate (sigt(n, n, n, ng), sigs(n, n, n, ng, ng), src(n, n, n, ng))
    h = 1d0 / n
    call quadrature(mu, eta, xi, wt)
    call materials(sigt, sigs, n)
    call fixed_source(q, n)
    phi = 0d0
    cur = 0d0
    fixups = 0
    do it = 1, nit
        phiold = phi
        do g = 1, ng
            call scatter_source(phi, sigs, q, src, n, g)
            call sweep_group(src(:, :, :, g), sigt(:, :, :, g), phi(:, :, :, g), cur(:, :, :, :, g), n, h, &
                             mu, eta, xi, wt, leak(:, g), fixups(g))
        end do
        change = max_change(phi, phiold, n)
    end do
    call absorption(phi, sigt, sigs, n, h, absorb)
    call balance(q, absorb, leak, n, h)
    write (*, '(a, i0, 1x, es22.14)') 'sweep3d_sn ', n, sum(phi) * h**3 + sum(abs(cur)) * h**3 + change &
        + sum(leak) + dble(sum(fixups)) * 1d-9
contains

    ! Level-symmetric S4: the three directions of the first octant and their weights
    ! (each octant's weights sum to 1/8).
    subroutine quadrature(mu, eta, xi, wt)
        double precision, intent(out) :: mu(nd), eta(nd), xi(nd), wt(nd)
        double precision :: a, b
        a = 0.3500212d0
        b = 0.8688903d0
        mu = (/b, a, a/)
        eta = (/a, b, a/)
        xi = (/a, a, b/)
        wt = 1d0 / (8 * nd)
    end subroutine

    ! Two materials: a dense absorbing block in the middle of a scattering medium.
    subroutine materials(sigt, sigs, n)
        integer, intent(in) :: n
        double precision, intent(out) :: sigt(n, n, n, ng), sigs(n, n, n, ng, ng)
        integer :: i, j, k, g, gp
        logical :: inner
        do g = 1, ng
            do k = 1, n
                do j = 1, n
                    do i = 1, n
                        inner = i > n / 3 .and. i <= 2 * n / 3 .and. j > n / 3 .and. j <= 2 * n / 3 &
                                .and. k > n / 3 .and. k <= 2 * n / 3
                        if (inner) then
                            sigt(i, j, k, g) = 2d0 + 0.5d0 * g
                        else
                            sigt(i, j, k, g) = 1d0 + 0.2d0 * g
                        end if
                    end do
                end do
            end do
        end do
        sigs = 0d0
        do gp = 1, ng
            do g = gp, ng
                do k = 1, n
                    do j = 1, n
                        do i = 1, n
                            sigs(i, j, k, g, gp) = sigt(i, j, k, gp) * merge(0.5d0, 0.2d0 / (g - gp + 1), g == gp)
                        end do
                    end do
                end do
            end do
        end do
    end subroutine

    ! A source in the fastest group, in one corner octant of the domain.
    subroutine fixed_source(q, n)
        integer, intent(in) :: n
        double precision, intent(out) :: q(n, n, n, ng)
        integer :: i, j, k
        q = 0d0
        do k = 1, n / 2
            do j = 1, n / 2
                do i = 1, n / 2
                    q(i, j, k, 1) = 1d0
                end do
            end do
        end do
    end subroutine

    ! The source of group g: fixed, within-group and down-scattering (isotropic).
    subroutine scatter_source(phi, sigs, q, src, n, g)
        integer, intent(in) :: n, g
        double precision, intent(in) :: phi(n, n, n, ng), sigs(n, n, n, ng, ng), q(n, n, n, ng)
        double precision, intent(out) :: src(n, n, n, ng)
        integer :: i, j, k, gp
        do k = 1, n
            do j = 1, n
                do i = 1, n
                    src(i, j, k, g) = q(i, j, k, g)
                end do
            end do
        end do
        do gp = 1, g
            do k = 1, n
                do j = 1, n
                    do i = 1, n
                        src(i, j, k, g) = src(i, j, k, g) + sigs(i, j, k, g, gp) * phi(i, j, k, gp)
                    end do
                end do
            end do
        end do
    end subroutine

    ! Transport sweeps of one group over the eight octants: diamond difference with
    ! fix-up, the scalar flux and current accumulated, leakage tallied on each face.
    subroutine sweep_group(src, sigt, phi, cur, n, h, mu, eta, xi, wt, leak, nfix)
        integer, intent(in) :: n
        double precision, intent(in) :: src(n, n, n), sigt(n, n, n), h, mu(nd), eta(nd), xi(nd), wt(nd)
        double precision, intent(out) :: phi(n, n, n), cur(3, n, n, n), leak(6)
        integer, intent(inout) :: nfix
        double precision :: fz
        double precision, allocatable :: face_y(:), face_z(:, :)
        integer :: oct, d, i, j, k, i0, i1, di, j0, j1, dj, k0, k1, dk
        double precision :: sx, sy, sz, cx, cy, cz, psi, den
        allocate (face_y(n), face_z(n, n))
        phi = 0d0
        cur = 0d0
        leak = 0d0
        do oct = 1, noct
            sx = merge(1d0, -1d0, iand(oct - 1, 1) == 0)
            sy = merge(1d0, -1d0, iand(oct - 1, 2) == 0)
            sz = merge(1d0, -1d0, iand(oct - 1, 4) == 0)
            call bounds(sx, n, i0, i1, di)
            call bounds(sy, n, j0, j1, dj)
            call bounds(sz, n, k0, k1, dk)
            do d = 1, nd
                cx = 2 * mu(d) / h
                cy = 2 * eta(d) / h
                cz = 2 * xi(d) / h
                face_z = 0d0 ! vacuum: nothing enters
                do k = k0, k1, dk
                    face_y = 0d0
                    do j = j0, j1, dj
                        fz = 0d0
                        do i = i0, i1, di
                            den = sigt(i, j, k) + cx + cy + cz
                            psi = (src(i, j, k) / (4 * 3.141592653589793d0) + cx * fz + cy * face_y(i) &
                                   + cz * face_z(i, j)) / den
                            fz = 2 * psi - fz
                            if (fz < 0) then
                                fz = 0d0
                                nfix = nfix + 1
                            end if
                            face_y(i) = 2 * psi - face_y(i)
                            if (face_y(i) < 0) then
                                face_y(i) = 0d0
                                nfix = nfix + 1
                            end if
                            face_z(i, j) = 2 * psi - face_z(i, j)
                            if (face_z(i, j) < 0) then
                                face_z(i, j) = 0d0
                                nfix = nfix + 1
                            end if
                            phi(i, j, k) = phi(i, j, k) + wt(d) * psi
                            cur(1, i, j, k) = cur(1, i, j, k) + wt(d) * sx * mu(d) * psi
                            cur(2, i, j, k) = cur(2, i, j, k) + wt(d) * sy * eta(d) * psi
                            cur(3, i, j, k) = cur(3, i, j, k) + wt(d) * sz * xi(d) * psi
                        end do
                        leak(merge(2, 1, sx > 0)) = leak(merge(2, 1, sx > 0)) + wt(d) * mu(d) * fz * h * h
                    end do
                    do i = 1, n
                        leak(merge(4, 3, sy > 0)) = leak(merge(4, 3, sy > 0)) + wt(d) * eta(d) * face_y(i) * h * h
                    end do
                end do
                do j = 1, n
                    do i = 1, n
                        leak(merge(6, 5, sz > 0)) = leak(merge(6, 5, sz > 0)) + wt(d) * xi(d) * face_z(i, j) * h * h
                    end do
                end do
            end do
        end do
        deallocate (face_y, face_z)
    end subroutine

    ! The loop bounds and step of a sweep in the direction of sign s.
    pure subroutine bounds(s, n, first, last, step)
        double precision, intent(in) :: s
        integer, intent(in) :: n
        integer, intent(out) :: first, last, step
        if (s > 0) then
            first = 1
            last = n
            step = 1
        else
            first = n
            last = 1
            step = -1
        end if
    end subroutine

    ! The largest relative change of the scalar flux between iterations.
    function max_change(phi, phiold, n) result(c)
        integer, intent(in) :: n
        double precision, intent(in) :: phi(n, n, n, ng), phiold(n, n, n, ng)
        double precision :: c
        integer :: i, j, k, g
        c = 0d0
        do g = 1, ng
            do k = 1, n
                do j = 1, n
                    do i = 1, n
                        if (phi(i, j, k, g) > 0) c = max(c, abs(phi(i, j, k, g) - phiold(i, j, k, g)) / phi(i, j, k, g))
                    end do
                end do
            end do
        end do
    end function

    ! Absorption rate per group: (sigma_t - sum of scattering out of g) phi, summed.
    subroutine absorption(phi, sigt, sigs, n, h, absorb)
        integer, intent(in) :: n
        double precision, intent(in) :: phi(n, n, n, ng), sigt(n, n, n, ng), sigs(n, n, n, ng, ng), h
        double precision, intent(out) :: absorb(ng)
        integer :: i, j, k, g, gp
        double precision :: out
        absorb = 0d0
        do g = 1, ng
            do k = 1, n
                do j = 1, n
                    do i = 1, n
                        out = 0d0
                        do gp = g, ng
                            out = out + sigs(i, j, k, gp, g)
                        end do
                        absorb(g) = absorb(g) + (sigt(i, j, k, g) - out) * phi(i, j, k, g) * h**3
                    end do
                end do
            end do
        end do
    end subroutine

    ! The particle balance of each group, written to standard error when it is off by
    ! more than the iterations' tolerance (it is not: the print is a real code's check).
    subroutine balance(q, absorb, leak, n, h)
        integer, intent(in) :: n
        double precision, intent(in) :: q(n, n, n, ng), absorb(ng), leak(6, ng), h
        integer :: g
        double precision :: production, loss
        do g = 1, ng
            production = sum(q(:, :, :, g)) * h**3
            loss = absorb(g) + sum(leak(:, g))
            if (loss > 10 * (production + 1)) write (0, '(a, i0, 2es12.4)') 'balance off in group ', g, production, loss
        end do
    end subroutine
end program
