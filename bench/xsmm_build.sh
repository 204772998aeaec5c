#!/bin/sh
# Builds OUT from bench/bench_cpu_peers.c against LIBXSMM, found through
# pkg-config (libxsmm.pc: the Debian/Ubuntu package libxsmm-dev, LIBXSMM 1.17).
# Without it, OUT is a stub that says so and exits 0 (a clear skip, as
# tools/nvcc_or_skip.sh does for nvcc).
#   sh bench/xsmm_build.sh [--install] OUT CC CFLAGS...
# --install: when pkg-config does not find LIBXSMM, try `apt-get install
# libxsmm-dev` first (as root or with password-less sudo; else say how).
install=0
if [ "$1" = "--install" ]; then install=1; shift; fi
out=$1; shift
cc=$1; shift
pkg=libxsmm-dev
if ! pkg-config --exists libxsmm 2>/dev/null && [ $install = 1 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      echo "LIBXSMM not found: apt-get install $pkg"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkg ||
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkg; }
    elif sudo -n true 2>/dev/null; then
      echo "LIBXSMM not found: sudo apt-get install $pkg"
      sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $pkg
    fi
  fi
fi
mkdir -p "$(dirname "$out")"
if pkg-config --exists libxsmm 2>/dev/null; then
  # libxsmm.a calls BLAS for shapes it does not JIT; libxsmmnoblas stands in
  noblas=
  pkg-config --exists libxsmmnoblas 2>/dev/null && noblas=-lxsmmnoblas
  exec $cc "$@" $(pkg-config --cflags libxsmm) bench/bench_cpu_peers.c -o "$out" \
    $(pkg-config --libs libxsmm) $noblas -lm
fi
msg="SKIP: $out was not built: LIBXSMM not found by pkg-config (libxsmm.pc). Install the $pkg package (Debian/Ubuntu, LIBXSMM 1.17) or run ninja bench-cpu-xsmm, which installs it where it can; then rm $out and build again."
echo "$msg"
printf '#!/bin/sh\necho "%s"\n' "$msg" > "$out"
chmod +x "$out"
