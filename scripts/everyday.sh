#!/bin/sh
# Runs the quick tests with the tests' clock started on each of the last
# seven days (so on every weekday), a few minutes either side of midnight,
# with every test user in a zone far from UTC, and stops at the first
# failure. Packages to run may be given; the default is every package.
#
#   scripts/everyday.sh              # go test -short ./... seven times
#   scripts/everyday.sh ./web        # only the web pages
set -eu
[ $# -gt 0 ] || set -- ./...
for back in 1 2 3 4 5 6 7; do
	day=$(date -u -d "-$back day" +%F)
	# The users' day is UTC's, the day after it (Kolkata), or the day
	# before it (Los Angeles late in the evening).
	case $((back % 4)) in
	0) now="${day}T23:50:00+13:00" zone=Pacific/Auckland ;;
	1) now="${day}T00:10:00-08:00" zone=America/Los_Angeles ;;
	2) now="${day}T23:55:00Z" zone=Asia/Kolkata ;;
	3) now="${day}T23:50:00-08:00" zone=America/Los_Angeles ;;
	esac
	echo "RECUR_TEST_NOW=$now RECUR_TEST_TIMEZONE=$zone ($(date -u -d "$day" +%A))"
	RECUR_TEST_NOW=$now RECUR_TEST_TIMEZONE=$zone go test -short -count=1 "$@"
done
