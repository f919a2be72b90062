! grid_stencil.f90 — a Fortran program for tests/integration/test_fortran.sh:
! module grid holds two ALLOCATABLE N x N arrays, and its procedure relax
! does one Jacobi sweep over the interior (a DO nest); the main
! program allocates, fills and sweeps 3 times.  usage: grid_stencil N
module grid
  implicit none
  real(8), allocatable :: u(:,:), v(:,:)
contains
  subroutine relax(n)
    integer, intent(in) :: n
    integer :: i, j
    do j = 2, n - 1
      do i = 2, n - 1
        v(i, j) = 0.25d0 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1))
      end do
    end do
  end subroutine relax
end module grid

program main
  use grid
  implicit none
  integer :: n, it
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) n
  allocate (u(n, n), v(n, n))
  u = 1.0d0
  v = 0.0d0
  do it = 1, 3
    call relax(n)
    u = v
  end do
  print *, sum(v)
end program main
