! adi.f90 — the Peaceman-Rachford alternating-direction implicit method for the
! 2-D heat equation u_t = u_xx + u_yy on the unit square, zero boundary, on an
! N x N interior grid (Peaceman & Rachford, J. SIAM 3, 1955; Press et al.,
! Numerical Recipes, 2nd ed., §19.3 "Alternating-Direction Implicit Method").
! Each step is two half steps: implicit in x (a tridiagonal system along the
! first, contiguous index for every column j, solved by the Thomas algorithm
! as NR's tridag, §2.4), then implicit in y (the systems along the second,
! strided index, solved for all i at once with i innermost, as vectorising
! Fortran codes write the second sweep).  STEPS steps; initial value a sine
! mode.  Work ~ 2 * 16 STEPS N^2 flops; data 4 * 8 N^2 bytes.
! usage: adi N           prints "adi N checksum"
module adi_kernels
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  ! init: u = sin(pi x) sin(pi y) at the interior points, n x n.
  subroutine init(n, u)
    integer, intent(in) :: n
    real(dp), intent(out) :: u(n, n)
    integer :: i, j
    real(dp) :: h, pi
    pi = 4.0_dp * atan(1.0_dp)
    h = 1.0_dp / real(n + 1, dp)
    do j = 1, n
      do i = 1, n
        u(i, j) = sin(pi * h * i) * sin(pi * h * j)
      end do
    end do
  end subroutine init

  ! tridag: solves the tridiagonal system (off-diagonals -r, diagonal 1 + 2r)
  ! u = rhs of length n by the Thomas algorithm; gam is scratch of length n.
  subroutine tridag(n, r, rhs, u, gam)
    integer, intent(in) :: n
    real(dp), intent(in) :: r, rhs(n)
    real(dp), intent(out) :: u(n), gam(n)
    integer :: i
    real(dp) :: bet
    bet = 1.0_dp + 2.0_dp * r
    u(1) = rhs(1) / bet
    do i = 2, n
      gam(i) = -r / bet
      bet = 1.0_dp + 2.0_dp * r + r * gam(i)
      u(i) = (rhs(i) + r * u(i - 1)) / bet
    end do
    do i = n - 1, 1, -1
      u(i) = u(i) - gam(i + 1) * u(i + 1)
    end do
  end subroutine tridag

  ! sweep_x: the first half step: rhs = explicit y part of u, then for every
  ! column j the implicit x system, into u.
  subroutine sweep_x(n, r, u, rhs, gam)
    integer, intent(in) :: n
    real(dp), intent(in) :: r
    real(dp), intent(inout) :: u(n, n)
    real(dp), intent(out) :: rhs(n, n), gam(n)
    integer :: i, j
    do j = 1, n
      do i = 1, n
        rhs(i, j) = (1.0_dp - 2.0_dp * r) * u(i, j)
        if (j > 1) rhs(i, j) = rhs(i, j) + r * u(i, j - 1)
        if (j < n) rhs(i, j) = rhs(i, j) + r * u(i, j + 1)
      end do
    end do
    do j = 1, n
      call tridag(n, r, rhs(:, j), u(:, j), gam)
    end do
  end subroutine sweep_x

  ! sweep_y: the second half step: rhs = explicit x part of u, then the
  ! implicit y systems for all i together (Thomas along j, i innermost).
  subroutine sweep_y(n, r, u, rhs, gam)
    integer, intent(in) :: n
    real(dp), intent(in) :: r
    real(dp), intent(inout) :: u(n, n)
    real(dp), intent(out) :: rhs(n, n), gam(n, n)
    integer :: i, j
    real(dp) :: bet(n)
    do j = 1, n
      do i = 1, n
        rhs(i, j) = (1.0_dp - 2.0_dp * r) * u(i, j)
        if (i > 1) rhs(i, j) = rhs(i, j) + r * u(i - 1, j)
        if (i < n) rhs(i, j) = rhs(i, j) + r * u(i + 1, j)
      end do
    end do
    do i = 1, n
      bet(i) = 1.0_dp + 2.0_dp * r
      u(i, 1) = rhs(i, 1) / bet(i)
    end do
    do j = 2, n
      do i = 1, n
        gam(i, j) = -r / bet(i)
        bet(i) = 1.0_dp + 2.0_dp * r + r * gam(i, j)
        u(i, j) = (rhs(i, j) + r * u(i, j - 1)) / bet(i)
      end do
    end do
    do j = n - 1, 1, -1
      do i = 1, n
        u(i, j) = u(i, j) - gam(i, j + 1) * u(i, j + 1)
      end do
    end do
  end subroutine sweep_y
end module adi_kernels

program adi
  use adi_kernels
  implicit none
  integer, parameter :: steps = 3
  integer :: n, s, stat
  character(len=32) :: arg
  real(dp), allocatable :: u(:, :), rhs(:, :), gam(:, :)
  real(dp) :: r, dt, h
  if (command_argument_count() /= 1) call usage()
  call get_command_argument(1, arg)
  read (arg, *, iostat=stat) n
  if (stat /= 0 .or. n < 2) call usage()
  allocate (u(n, n), rhs(n, n), gam(n, n))
  h = 1.0_dp / real(n + 1, dp)
  dt = 0.5_dp * h          ! r = dt / (2 h^2): a large, implicit-only time step
  r = dt / (2.0_dp * h * h)
  call init(n, u)
  do s = 1, steps
    call sweep_x(n, r, u, rhs, gam(:, 1))
    call sweep_y(n, r, u, rhs, gam)
  end do
  print '(a, 1x, i0, 1x, es14.6)', 'adi', n, sum(u) / real(n, dp)**2
contains
  subroutine usage()
    write (0, '(a)') 'usage: adi N (N >= 2)'
    stop 2
  end subroutine usage
end program adi
