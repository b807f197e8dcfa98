#!/bin/bash
# List processes on the debug target so the IDE can attach, whatever OS the target runs.
target=devmac
ssh -o BatchMode=yes -o ConnectTimeout=10 "$target" "sh -c 'if [ \"$(uname)\" = Linux ]; then ps -axww -o pid=,comm=,args=; elif [ \"$(uname)\" = Darwin ]; then ps -axww -o pid=,comm=,args= -c; fi'"
