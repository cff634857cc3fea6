#!/bin/sh
# Entry point of the support-agent image (see Dockerfile).
#
#   APP=<app>            run one app: gateway bots knowledge chat leads bookings mcp webhook-dispatcher console evaluations channels
#   migrate [args]       run the migrations     (same as: node dist/tools/migrate/main.js)
#   admin [args]         run the admin CLI      (same as: node dist/tools/admin/main.js)
#   <any command>        run it as given, e.g.  node dist/tools/migrate/main.js
#
# exec keeps node as PID 1, so SIGTERM reaches it and Nest's shutdown hooks run.
set -eu

APPS="gateway bots knowledge chat leads bookings mcp webhook-dispatcher console evaluations channels"

if [ "$#" -gt 0 ]; then
  case "$1" in
    migrate) shift; exec node dist/tools/migrate/main.js "$@" ;;
    admin) shift; exec node dist/tools/admin/main.js "$@" ;;
    *) exec "$@" ;;
  esac
fi

APP="${APP:-}"
if [ -z "$APP" ]; then
  echo "support-agent: APP is not set. Set APP to one of: $APPS" >&2
  echo "  or pass a command: migrate | admin ... | node dist/tools/migrate/main.js" >&2
  exit 64
fi
case " $APPS " in
  *" $APP "*) ;;
  *)
    echo "support-agent: unknown APP \"$APP\". Expected one of: $APPS" >&2
    exit 64
    ;;
esac

MAIN="dist/apps/$APP/src/main.js"
if [ ! -f "$MAIN" ]; then
  echo "support-agent: $MAIN is missing from the image (was the build complete?)" >&2
  exit 70
fi
exec node "$MAIN"
