# shellcheck shell=sh
# Guest test "hang": never finishes. The harness's own timeout test boots it
# to prove that a hung guest is stopped and reported with its console tail.
echo "hanging on purpose"
sleep 100000
