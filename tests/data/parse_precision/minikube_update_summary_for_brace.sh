updateSummary() {
  for ((i = 0; i < ${#RESULTS[@]}; i++)) {
    echo "${RESULTS[i]}" >> out/benchmark-results/${SESSION_ID}/cstat.summary
  }
}
