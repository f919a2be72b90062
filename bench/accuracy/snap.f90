! snap.f90 — a discrete-ordinates neutral-particle transport sweep in the form
! of LANL's SNAP, the SN Application Proxy (R. J. Zerr and R. S. Baker, "SNAP:
! SN (Discrete Ordinates) Application Proxy, Proxy Description", LA-UR-13-21070,
! Los Alamos, 2013; github.com/lanl/SNAP, serial steady-state form): a 3-D
! mesh of N^3 cells of fixed width (a weak-scaling input: the domain grows
! with N), NG energy groups, NANG angles per octant from SNAP's simple
! quadrature (mu = (m - 1/2)/NANG, eta = 1 - mu, xi = sqrt(1 - mu^2 - eta^2),
! weights 1/(8 NANG)), all 8 octants swept cell by cell in the octant's
! direction with the face fluxes psii(nang, j, k), psij(nang, i, k),
! psik(nang, i, j) as SNAP's dim3_sweep keeps them, diamond differencing with
! SNAP's negative-flux fix-up (an outgoing face flux below zero is set to
! zero and the cell's balance solved again without it, repeated until no
! new face turns negative: a loop whose trips depend on the data), vacuum
! boundaries.  SNAP's mat_opt = 1 and src_opt = 1: material 2 and the fixed
! source fill the centre cube (cells N/4 + 1 .. 3N/4 in each direction).
! Source iterations as SNAP's outer/inner loops: OUTERS outer iterations
! (downscatter from group g-1 into g with the previous fluxes), each with
! INNERS inner iterations per group (within-group scattering); fixed
! counts, as SNAP runs when its tolerance is not met.
! Work ~ OUTERS * INNERS * NG * 8 * NANG * 25 N^3 flops; data ~ 8 (3 NG + 3
! NANG) N^3 bytes.
! usage: snap N          prints "snap N scalar-flux-sum fixups"
module snap_kernels
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: ng = 3, nang = 4, outers = 2, inners = 1
  real(dp), parameter :: width = 0.5_dp  ! cell width in x, y and z (cm)
contains
  ! quadrature: SNAP's cosines mu, eta, xi of the NANG angles of an octant
  ! and their weight w (the 8 NANG weights sum to 1).
  subroutine quadrature(mu, eta, xi, w)
    real(dp), intent(out) :: mu(nang), eta(nang), xi(nang), w
    integer :: m
    do m = 1, nang
      mu(m) = (real(m, dp) - 0.5_dp) / real(nang, dp)
      eta(m) = 1.0_dp - mu(m)
      xi(m) = sqrt(1.0_dp - mu(m)**2 - eta(m)**2)
    end do
    w = 1.0_dp / real(8 * nang, dp)
  end subroutine quadrature

  ! materials: the total and scattering cross sections per cell and group
  ! (material 1 outside the centre cube, 2 inside; SNAP's mat_opt = 1), the
  ! fixed source (1 in the centre cube, 0 outside; src_opt = 1), and the
  ! downscatter cross section from g-1 into g.
  subroutine materials(n, sigt, sigs, sigd, qext)
    integer, intent(in) :: n
    real(dp), intent(out) :: sigt(n, n, n, ng), sigs(n, n, n, ng), sigd(n, n, n, ng), qext(n, n, n, ng)
    integer :: i, j, k, g, lo, hi
    logical :: inside
    lo = n / 4 + 1
    hi = 3 * n / 4
    do g = 1, ng
      do k = 1, n
        do j = 1, n
          do i = 1, n
            inside = i >= lo .and. i <= hi .and. j >= lo .and. j <= hi .and. k >= lo .and. k <= hi
            if (inside) then
              sigt(i, j, k, g) = 2.0_dp + 0.5_dp * g
              sigs(i, j, k, g) = 0.5_dp * sigt(i, j, k, g)
              qext(i, j, k, g) = 1.0_dp
            else
              sigt(i, j, k, g) = 1.0_dp + 0.1_dp * g
              sigs(i, j, k, g) = 0.9_dp * sigt(i, j, k, g)
              qext(i, j, k, g) = 0.0_dp
            end if
            sigd(i, j, k, g) = merge(0.1_dp * sigt(i, j, k, g), 0.0_dp, g > 1)
          end do
        end do
      end do
    end do
  end subroutine materials

  ! outer_source: qout = the fixed source of group g plus the downscatter
  ! into g from the scalar flux of g-1.
  subroutine outer_source(n, g, qext, sigd, phi, qout)
    integer, intent(in) :: n, g
    real(dp), intent(in) :: qext(n, n, n, ng), sigd(n, n, n, ng), phi(n, n, n, ng)
    real(dp), intent(out) :: qout(n, n, n)
    if (g > 1) then
      qout = qext(:, :, :, g) + sigd(:, :, :, g) * phi(:, :, :, g - 1)
    else
      qout = qext(:, :, :, g)
    end if
  end subroutine outer_source

  ! inner_source: qtot = qout plus within-group scattering of phig (isotropic,
  ! per unit solid angle as the sweep takes it).
  subroutine inner_source(n, qout, sigs, phig, qtot)
    integer, intent(in) :: n
    real(dp), intent(in) :: qout(n, n, n), sigs(n, n, n), phig(n, n, n)
    real(dp), intent(out) :: qtot(n, n, n)
    qtot = qout + sigs * phig
  end subroutine inner_source

  ! octant_sweep: one octant of group g's sweep (directions sx, sy, sz = +-1),
  ! its angles' weighted cell fluxes added to phig; fixups counts the
  ! fix-up passes.  Diamond difference: the cell flux solves
  !   sigt psi + 2 mu/dx (psi - psi_in_x) + ... = q,  psi_out = 2 psi - psi_in,
  ! and a negative psi_out is set to zero and its face's term dropped (SNAP's
  ! fix-up, hv = 0 for that face), again until no new face is negative.
  subroutine octant_sweep(n, sx, sy, sz, mu, eta, xi, w, sigt, qtot, phig, psii, psij, psik, fixups)
    integer, intent(in) :: n, sx, sy, sz
    real(dp), intent(in) :: mu(nang), eta(nang), xi(nang), w, sigt(n, n, n), qtot(n, n, n)
    real(dp), intent(inout) :: phig(n, n, n)
    real(dp), intent(out) :: psii(nang, n, n), psij(nang, n, n), psik(nang, n, n)
    integer, intent(inout) :: fixups
    integer :: i, j, k, m, i0, j0, k0, nhv, nhv_new
    real(dp) :: hi, hj, hk, psi, q, den, ox, oy, oz, fx, fy, fz
    psii = 0.0_dp
    psij = 0.0_dp
    psik = 0.0_dp
    i0 = merge(1, n, sx > 0)
    j0 = merge(1, n, sy > 0)
    k0 = merge(1, n, sz > 0)
    do k = k0, n + 1 - k0, sz
      do j = j0, n + 1 - j0, sy
        do i = i0, n + 1 - i0, sx
          q = qtot(i, j, k)
          do m = 1, nang
            hi = 2.0_dp * mu(m) / width
            hj = 2.0_dp * eta(m) / width
            hk = 2.0_dp * xi(m) / width
            psi = (q + hi * psii(m, j, k) + hj * psij(m, i, k) + hk * psik(m, i, j)) / &
                  (sigt(i, j, k) + hi + hj + hk)
            ox = 2.0_dp * psi - psii(m, j, k)
            oy = 2.0_dp * psi - psij(m, i, k)
            oz = 2.0_dp * psi - psik(m, i, j)
            if (ox < 0.0_dp .or. oy < 0.0_dp .or. oz < 0.0_dp) then
              fx = 1.0_dp
              fy = 1.0_dp
              fz = 1.0_dp
              nhv = 3
              do
                if (ox < 0.0_dp) fx = 0.0_dp
                if (oy < 0.0_dp) fy = 0.0_dp
                if (oz < 0.0_dp) fz = 0.0_dp
                nhv_new = nint(fx + fy + fz)
                if (nhv_new == nhv) exit
                nhv = nhv_new
                fixups = fixups + 1
                ! balance with the zeroed faces' outflow dropped: their
                ! outgoing flux is 0, so the inflow term is hi psi_in only
                den = sigt(i, j, k) + fx * hi + fy * hj + fz * hk
                psi = (q + 0.5_dp * hi * (1.0_dp + fx) * psii(m, j, k) + 0.5_dp * hj * (1.0_dp + fy) * psij(m, i, k) &
                       + 0.5_dp * hk * (1.0_dp + fz) * psik(m, i, j)) / den
                ox = 2.0_dp * psi - psii(m, j, k)
                oy = 2.0_dp * psi - psij(m, i, k)
                oz = 2.0_dp * psi - psik(m, i, j)
              end do
              ox = fx * ox
              oy = fy * oy
              oz = fz * oz
            end if
            psii(m, j, k) = ox
            psij(m, i, k) = oy
            psik(m, i, j) = oz
            phig(i, j, k) = phig(i, j, k) + w * psi
          end do
        end do
      end do
    end do
  end subroutine octant_sweep
end module snap_kernels

program snap
  use snap_kernels
  implicit none
  integer :: n, stat, g, outer, inner, oct, fixups
  character(len=32) :: arg
  real(dp) :: mu(nang), eta(nang), xi(nang), w
  real(dp), allocatable :: sigt(:, :, :, :), sigs(:, :, :, :), sigd(:, :, :, :), qext(:, :, :, :)
  real(dp), allocatable :: phi(:, :, :, :), qout(:, :, :), qtot(:, :, :), phig(:, :, :)
  real(dp), allocatable :: psii(:, :, :), psij(:, :, :), psik(:, :, :)
  if (command_argument_count() /= 1) call usage()
  call get_command_argument(1, arg)
  read (arg, *, iostat=stat) n
  if (stat /= 0 .or. n < 2 .or. n > 1000) call usage()
  allocate (sigt(n, n, n, ng), sigs(n, n, n, ng), sigd(n, n, n, ng), qext(n, n, n, ng), phi(n, n, n, ng))
  allocate (qout(n, n, n), qtot(n, n, n), phig(n, n, n), psii(nang, n, n), psij(nang, n, n), psik(nang, n, n))
  call quadrature(mu, eta, xi, w)
  call materials(n, sigt, sigs, sigd, qext)
  phi = 0.0_dp
  fixups = 0
  do outer = 1, outers
    do g = 1, ng
      call outer_source(n, g, qext, sigd, phi, qout)
      do inner = 1, inners
        call inner_source(n, qout, sigs(:, :, :, g), phi(:, :, :, g), qtot)
        phig = 0.0_dp
        do oct = 0, 7
          call octant_sweep(n, 1 - 2 * iand(oct, 1), 1 - iand(oct, 2), 1 - iand(oct, 4) / 2, mu, eta, xi, w, &
                            sigt(:, :, :, g), qtot, phig, psii, psij, psik, fixups)
        end do
        phi(:, :, :, g) = phig
      end do
    end do
  end do
  print '(a, 1x, i0, 1x, es14.6, 1x, i0)', 'snap', n, sum(phi), fixups
contains
  subroutine usage()
    write (0, '(a)') 'usage: snap N (2 <= N <= 1000)'
    stop 2
  end subroutine usage
end program snap
