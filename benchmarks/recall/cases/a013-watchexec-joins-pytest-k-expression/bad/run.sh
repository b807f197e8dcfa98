#!/bin/bash
# Re-run the dataset tests every time a Python file is saved.
cd /srv/xarray-dev || exit 1
watchexec --exts py -- pytest -k 'dataset or dataarray' tests/
