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
# The carrier (IFF_RUNNING) comes up after the kernel's link watch runs, which a loaded
# machine delays: a client started before it sees no usable interface and waits for the
# network. Return once both ends are up (or fail after 10 s).
for i in $(seq 1 200); do
    if ip -n "$c" link show "rt${tag}c" | grep -q 'state UP' && ip -n "$s" link show "rt${tag}s" | grep -q 'state UP'; then
        exit 0
    fi
    sleep 0.05
done
echo "up.sh: the veth pair rt${tag}c/rt${tag}s did not come up within 10 s" >&2
exit 1
