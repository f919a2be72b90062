! mxm_alloc.f90 — a Fortran test program: module mxm holds three ALLOCATABLE
! N x N arrays and its subroutine multiply computes c = a * b with a DO nest
! (j, k, i: the innermost body runs N^3 times); the main program allocates,
! fills, multiplies once and prints a checksum.  usage: mxm_alloc N
module mxm
  implicit none
  real(8), allocatable :: a(:,:), b(:,:), c(:,:)
contains
  ! multiply(n) — c = a * b for the module's n x n arrays (allocated).
  subroutine multiply(n)
    integer, intent(in) :: n
    integer :: i, j, k
    c = 0.0d0
    do j = 1, n
      do k = 1, n
        do i = 1, n
          c(i, j) = c(i, j) + a(i, k) * b(k, j)
        end do
      end do
    end do
  end subroutine multiply
end module mxm

program mxm_main
  use mxm
  implicit none
  integer :: n
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) n
  allocate (a(n, n), b(n, n), c(n, n))
  a = 1.0d0
  b = 2.0d0
  call multiply(n)
  print *, sum(c)
end program mxm_main
