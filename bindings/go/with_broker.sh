#!/bin/sh
# with_broker.sh BROKER_SCRIPT DIR COMMAND...: runs COMMAND with QUEUEY_TEST_URL set, to
# the caller's broker when it is set already, else to a private node that BROKER_SCRIPT
# (scripts/broker) starts in DIR or reuses (scripts/test stops it at the end).
set -eu
broker=$1
dir=$2
shift 2
if [ -z "${QUEUEY_TEST_URL:-}" ]; then
    "$broker" start "$dir" >/dev/null
    # shellcheck disable=SC1091
    . "$dir/env"
    QUEUEY_TEST_URL=$QUEUEY_URL
    export QUEUEY_TEST_URL
fi
exec "$@"
