#!/bin/bash
# List the tables of the shop project's database inside its ddev container.
cd "$HOME/projects/shop" || exit 1
ddev start
ddev exec 'mysql -e "SHOW TABLES;"'
