# Helpers shared by the cluster scripts (sourced, never run).
remote() {
  ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$1" "$2"
}
