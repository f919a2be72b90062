! common_shape.f90 — a Fortran test program with globals of both kinds: the
! COMMON block /fields/ (arrays x and y of 4096 doubles) and module state's
! array w (4096 doubles), and an assumed-shape dummy argument: subroutine
! axpy(alpha, p, q) does q = alpha * p + q over p(:), q(:) of any size.
! The main program sweeps N times; each sweep calls axpy on x -> y and
! y -> w.  usage: common_shape N
module state
  implicit none
  real(8) :: w(4096)
contains
  ! axpy(alpha, p, q) — q(i) = alpha * p(i) + q(i) for i = 1 .. size(q).
  subroutine axpy(alpha, p, q)
    real(8), intent(in) :: alpha
    real(8), intent(in) :: p(:)
    real(8), intent(inout) :: q(:)
    integer :: i
    do i = 1, size(q)
      q(i) = alpha * p(i) + q(i)
    end do
  end subroutine axpy
end module state

program common_shape
  use state
  implicit none
  real(8) :: x(4096), y(4096)
  common /fields/ x, y
  integer :: n, it
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) n
  x = 1.0d0
  y = 0.0d0
  w = 0.0d0
  do it = 1, n
    call axpy(0.5d0, x, y)
    call axpy(0.25d0, y, w)
  end do
  print *, sum(w)
end program common_shape
