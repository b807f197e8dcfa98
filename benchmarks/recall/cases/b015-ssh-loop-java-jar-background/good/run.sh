#!/bin/bash
# Roll the new jar out to every app node and start it there.
JAR=build/libs/app.jar
SSH_OPTS=(-o BatchMode=yes -o ConnectTimeout=10)

for host in app1 app2 app3; do
  echo "Deploying to $host"
  scp "${SSH_OPTS[@]}" "$JAR" "deploy@$host:/opt/app/app.jar" || exit 1
  ssh "${SSH_OPTS[@]}" "deploy@$host" 'nohup java -jar /opt/app/app.jar < /dev/null > /dev/null 2> /dev/null &'
done
