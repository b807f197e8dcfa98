#!/bin/bash
# CI step: check that the Postgres service on Railway accepts connections.
set -e
railway link --project shop --environment staging
railway ssh --service postgres 'pg_isready -h localhost -p 5432 && echo ready'
