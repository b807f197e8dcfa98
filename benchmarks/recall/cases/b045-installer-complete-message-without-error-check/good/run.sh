#!/bin/bash
# Build and install Profanity from a source checkout (Debian).
STATUS=development

set -o errtrace
error_handler() {
  local err_code=$?
  echo "Error $err_code with command '$BASH_COMMAND' on line ${BASH_LINENO[0]}. Exiting."
  exit "$err_code"
}
trap error_handler ERR

echo "Profanity installer... installing dependencies"
sudo apt-get -y install git automake autoconf libssl-dev libexpat1-dev libncursesw5-dev libglib2.0-dev libtool

echo "Profanity installer... installing Profanity"
if [ "${STATUS}" = "development" ]; then
  ./bootstrap.sh
fi
./configure
make
sudo make install

echo "Profanity installer... complete!"
echo "Type 'profanity' to run."
