#!/bin/sh
# runit service: run the consul agent as the consul user, data kept under its home.
exec 2>&1
exec setuser consul sh -c 'exec consul agent -config-dir=/etc/consul.d -data-dir="$HOME/data"'
