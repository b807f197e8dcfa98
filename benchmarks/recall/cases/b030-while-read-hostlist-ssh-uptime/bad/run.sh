#!/bin/bash
# Print the uptime of every host listed in hostlist.txt.
while IFS= read -r host
do
  ssh -o BatchMode=yes -o ConnectTimeout=10 "$host" uptime
done < hostlist.txt
