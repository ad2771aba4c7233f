#!/bin/sh
# Creates two private network namespaces joined by a veth pair, for the fault tests:
#   rt-<tag>-c (client side, veth rt<tag>c 10.250.0.1/30)
#   rt-<tag>-s (server side, veth rt<tag>s 10.250.0.2/30)
# Addresses live only inside these namespaces and route nowhere else. Idempotent: an old
# pair with the same tag is removed first. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN).
set -eu
tag=${1:?usage: up.sh TAG}
c=rt-$tag-c; s=rt-$tag-s
"$(dirname "$0")/down.sh" "$tag"
ip netns add "$c"
ip netns add "$s"
ip link add "rt${tag}c" netns "$c" type veth peer name "rt${tag}s" netns "$s"
ip -n "$c" addr add 10.250.0.1/30 dev "rt${tag}c"
ip -n "$s" addr add 10.250.0.2/30 dev "rt${tag}s"
for ns in "$c" "$s"; do ip -n "$ns" link set lo up; done
ip -n "$c" link set "rt${tag}c" up
ip -n "$s" link set "rt${tag}s" up
