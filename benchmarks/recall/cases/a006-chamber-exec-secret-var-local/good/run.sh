#!/bin/bash
# Open a psql session to the billing database using the credentials kept in SSM.
service=billing
echo "connecting with the ${service} credentials"
chamber exec "$service" -- bash -c 'psql -h "$DB_HOST" -U "$DB_USER" billing'
