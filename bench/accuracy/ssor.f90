! ssor.f90 — symmetric successive over-relaxation (SSOR) for the 2-D Poisson
! problem -lap u = f on the unit square, zero boundary, 5-point operator on an
! N x N interior grid (Saad, Iterative Methods for Sparse Linear Systems, 2nd
! ed., §4.1.2: an SOR sweep in the natural order, then one in the reverse
! order; the Gauss-Seidel relaxation of Golub & Van Loan, 4th ed., §11.2.3,
! with relaxation factor omega), ITERS iterations, then the residual's norm.
! Column-major: the inner loop runs along the first index.  Work ~ 2 * 8 ITERS
! N^2 flops, a recurrence in both directions; data 2 * 8 (N+2)^2 bytes.
! usage: ssor N          prints "ssor N residual-norm"
module ssor_kernels
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  ! setup: f = 1 inside, u = 0 with its boundary ring (indices 0 and n+1).
  subroutine setup(n, u, f)
    integer, intent(in) :: n
    real(dp), intent(out) :: u(0:n + 1, 0:n + 1), f(n, n)
    u = 0.0_dp
    f = 1.0_dp
  end subroutine setup

  ! sor_sweep: one SOR sweep over the interior, in increasing i and j when
  ! dir is 1, in decreasing i and j when dir is -1.
  subroutine sor_sweep(n, omega, h2, u, f, dir)
    integer, intent(in) :: n, dir
    real(dp), intent(in) :: omega, h2, f(n, n)
    real(dp), intent(inout) :: u(0:n + 1, 0:n + 1)
    integer :: i, j, first, last
    first = merge(1, n, dir > 0)
    last = merge(n, 1, dir > 0)
    do j = first, last, dir
      do i = first, last, dir
        u(i, j) = (1.0_dp - omega) * u(i, j) + omega * 0.25_dp * &
                  (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) + h2 * f(i, j))
      end do
    end do
  end subroutine sor_sweep

  ! residual: || f - A u ||_2 over the interior, A the 5-point operator / h^2.
  function residual(n, h2, u, f) result(norm)
    integer, intent(in) :: n
    real(dp), intent(in) :: h2, u(0:n + 1, 0:n + 1), f(n, n)
    real(dp) :: norm, r
    integer :: i, j
    norm = 0.0_dp
    do j = 1, n
      do i = 1, n
        r = f(i, j) - (4.0_dp * u(i, j) - u(i - 1, j) - u(i + 1, j) - u(i, j - 1) - u(i, j + 1)) / h2
        norm = norm + r * r
      end do
    end do
    norm = sqrt(norm)
  end function residual
end module ssor_kernels

program ssor
  use ssor_kernels
  implicit none
  integer, parameter :: iters = 4
  real(dp), parameter :: omega = 1.5_dp
  integer :: n, k, stat
  character(len=32) :: arg
  real(dp), allocatable :: u(:, :), f(:, :)
  real(dp) :: h2
  if (command_argument_count() /= 1) call usage()
  call get_command_argument(1, arg)
  read (arg, *, iostat=stat) n
  if (stat /= 0 .or. n < 1) call usage()
  allocate (u(0:n + 1, 0:n + 1), f(n, n))
  h2 = (1.0_dp / real(n + 1, dp))**2
  call setup(n, u, f)
  do k = 1, iters
    call sor_sweep(n, omega, h2, u, f, 1)
    call sor_sweep(n, omega, h2, u, f, -1)
  end do
  print '(a, 1x, i0, 1x, es14.6)', 'ssor', n, residual(n, h2, u, f)
contains
  subroutine usage()
    write (0, '(a)') 'usage: ssor N (N >= 1)'
    stop 2
  end subroutine usage
end program ssor
