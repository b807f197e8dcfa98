  build_conda_exclusion_list() {
    shims=()
    for shim in $(sed 's/#.*$//; /^[[:space:]]*$/d' "${BASH_SOURCE%/*}/conda.d/default.list"); do
      if [ -n "${shim##*/}" ]; then
        shims[${#shims[*]}]="${shim})return 0;;"
      fi
    done
    eval \
"conda_shim() {
  case \"\${1##*/}\" in
    ${shims[@]}
    *) return 1;;
  esac
}"
  }
