#!/bin/bash
# Set the greeting shown by the guestbook app on the piku server.
server=piku@apps.example.com
ssh -o BatchMode=yes -o ConnectTimeout=10 "$server" config:set guestbook GREETING="Welcome to the guestbook"
