#!/bin/sh
# Removes what up.sh created (deleting a namespace deletes its veth end, and with it the
# pair, and every iptables/tc rule inside it). Safe to run when nothing exists.
tag=${1:?usage: down.sh TAG}
for ns in "rt-$tag-c" "rt-$tag-s"; do
    ip netns del "$ns" 2>/dev/null || true
done
exit 0
