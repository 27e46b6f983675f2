# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: installs the sanitizer
# and libFuzzer runtimes (Debian's libclang-rt-22-dev) if missing, and
# configures a sanitized build directory with clang-22.

# install_sanitizer_runtime
install_sanitizer_runtime() {
  if ! dpkg-query -W -f='${Status}' libclang-rt-22-dev 2>/dev/null |
      grep -q "install ok installed"; then
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends libclang-rt-22-dev
  fi
}

# configure_sanitized DIR COMPILE_SANITIZERS LINK_SANITIZERS [CMAKE_ARGS...]
# Configures DIR (once) with -fsanitize=COMPILE_SANITIZERS on all of fnc's
# code and -fsanitize=LINK_SANITIZERS at every link. UBSan, when present,
# stops at the first report.
configure_sanitized() {
  local dir=$1 compile=$2 link=$3
  shift 3
  [ -f "$dir/build.ninja" ] && return 0
  local flags="-fsanitize=$compile -fno-omit-frame-pointer -g1 -fdebug-compilation-dir=."
  case ",$compile," in
    *,undefined,*) flags+=" -fno-sanitize-recover=undefined" ;;
  esac
  cmake -G Ninja -S "$root" -B "$dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_ENABLE_LLD=ON \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$link" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=$link" \
    "$@"
}

# The ASan+UBSan configuration shared by scripts/sanitize.sh and
# scripts/fuzz.sh: the code also carries libFuzzer's coverage
# instrumentation (fuzzer-no-link), so one directory serves both
# (FNC_FUZZ_BUILD_DIR=build-asan scripts/fuzz.sh reuses the CI build).
configure_asan() {
  configure_sanitized "$1" fuzzer-no-link,address,undefined address,undefined \
    -DFNC_FUZZ=ON
}
