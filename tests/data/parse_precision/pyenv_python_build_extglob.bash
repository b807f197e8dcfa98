set -E
shopt -s extglob


package_is_python() {
  case "$1" in
    Python-* | jython-* | pypy-* | pypy[0-9].+([0-9])-* | stackless-* )
      return 0
      ;;
  esac
  return 1
}
