#!/bin/sh
# clang-format over every C/C++/CUDA source in the repo (.clang-format at the top).
files=$(git ls-files '*.h' '*.c' '*.cu' '*.cuh' '*.cpp' 2>/dev/null; git ls-files --others --exclude-standard '*.h' '*.c' '*.cu' '*.cuh' '*.cpp' 2>/dev/null)
[ -n "$files" ] || { echo "no sources"; exit 1; }
if [ "$1" = "--fix" ]; then clang-format -i $files; exit; fi
clang-format --dry-run --Werror $files && echo "format-check: $(echo $files | wc -w) files clean"
