! alloc_kinds.f90 — a Fortran test program with the ALLOCATEs that are not
! a module's array: the main program's local loc(N), a dummy argument
! allocated inside a module procedure (make allocates its x(2N), the
! caller's viaarg), and the components p(3N) and t(4N) of a derived-type
! variable g.  memspy should name them loc, x, g%p and g%t.
! usage: alloc_kinds N
module fields
  implicit none
  type grid_t
    real(8), allocatable :: p(:), t(:)
  end type grid_t
contains
  ! make(x, n) — allocate x(n) and set it to 1.
  subroutine make(x, n)
    real(8), allocatable, intent(out) :: x(:)
    integer, intent(in) :: n
    allocate (x(n))
    x = 1.0d0
  end subroutine make
end module fields

program alloc_kinds
  use fields
  implicit none
  real(8), allocatable :: loc(:), viaarg(:)
  type(grid_t) :: g
  integer :: n
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) n
  allocate (loc(n))
  loc = 2.0d0
  call make(viaarg, 2 * n)
  allocate (g%p(3 * n), g%t(4 * n))
  g%p = 1.0d0
  g%t = 3.0d0
  print *, sum(loc) + sum(viaarg) + sum(g%p) + sum(g%t)
end program alloc_kinds
