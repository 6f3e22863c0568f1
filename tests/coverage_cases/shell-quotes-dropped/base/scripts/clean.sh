#!/bin/sh
set -eu
target="$1"
rm -rf -- "$BUILD_ROOT/$target"
