/*
 * mountd-payload-sz.so: preloaded into ksmbd.mountd of ksmbd-tools before 3.5.2 (Debian 12 ships
 * 3.4.7), so that its share config responses carry the payload_sz field newer kernels check.
 *
 * Linux 6.1.192's ksmbd (and mainline since 6.9) has a payload_sz field in struct
 * ksmbd_share_config_response, in what older ksmbd-tools call reserved room, and drops a
 * response whose netlink attribute is not exactly sizeof(response) + payload_sz bytes
 * (transport_ipc.c, ipc_validate_msg). ksmbd-tools 3.4.7 leaves that field 0 but sends the
 * share's path (at least one byte) after the fixed part, so ksmbd dropped every share config
 * response and answered every TREE_CONNECT, IPC$ included, with STATUS_BAD_NETWORK_NAME.
 * ksmbd-tools 3.5.2 fills the field with the length of what follows; so does this shim, and only
 * when the field is 0. On kernels without the field (6.1.176) it is reserved room they ignore.
 *
 * It wraps libnl's nla_put(), through which ksmbd.mountd puts each IPC message into its netlink
 * attribute (the attribute type is the ksmbd event). Built by build.sh; guest-ksmbd-up preloads
 * it when the image has it. See PROOF.md, "ksmbd serving files".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nl_msg;

/* enum ksmbd_event (ksmbd_netlink.h): KSMBD_EVENT_SHARE_CONFIG_RESPONSE */
#define SHARE_CONFIG_RESPONSE 7
/*
 * struct ksmbd_share_config_response: handle, flags (u32 each), six u16 masks and ids,
 * share_name[64], reserved[111] (u32), payload_sz (u32), veto_list_sz (u32), then the payload.
 */
#define PAYLOAD_SZ_OFFSET (4 + 4 + 6 * 2 + 64 + 111 * 4)
#define FIXED_SIZE (PAYLOAD_SZ_OFFSET + 4 + 4)

int nla_put(struct nl_msg *msg, int type, int len, const void *data)
{
    static int (*real)(struct nl_msg *, int, int, const void *);
    static int told;
    uint32_t payload_sz;

    if (!real)
        real = (int (*)(struct nl_msg *, int, int, const void *))dlsym(RTLD_NEXT, "nla_put");
    if (!real)
        abort();
    if (type != SHARE_CONFIG_RESPONSE || len <= FIXED_SIZE)
        return real(msg, type, len, data);
    memcpy(&payload_sz, (const char *)data + PAYLOAD_SZ_OFFSET, sizeof(payload_sz));
    if (payload_sz != 0)
        return real(msg, type, len, data);
    {
        char *copy = malloc((size_t)len);
        int rc;

        if (!copy)
            return -5; /* -NLE_NOMEM */
        memcpy(copy, data, (size_t)len);
        payload_sz = (uint32_t)(len - FIXED_SIZE);
        memcpy(copy + PAYLOAD_SZ_OFFSET, &payload_sz, sizeof(payload_sz));
        rc = real(msg, type, len, copy);
        free(copy);
        if (!told++)
            fprintf(stderr, "mountd-payload-sz: share config response of %d bytes sent with payload_sz %u"
                    " (ksmbd-tools left it 0)\n", len, (unsigned)payload_sz);
        return rc;
    }
}
