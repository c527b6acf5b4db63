package smbdirect.rdma.verbs.internal;

import smbdirect.api.rdma.TransportType;

/**
 * What {@code ibv_query_device} and {@code ibv_query_port} (port 1) report about a device: the
 * limits the provider sizes its capabilities by. Immutable.
 *
 * @param name the device name ({@code ibv_get_device_name})
 * @param transportType iWARP from {@code ibv_device.transport_type}, else RoCE or InfiniBand from
 *     the port's {@code link_layer}
 * @param maxMrSize {@code max_mr_size}: the largest registration
 * @param maxQpWr {@code max_qp_wr}: work requests per queue
 * @param maxSge {@code max_sge}
 * @param maxCqe {@code max_cqe}: entries per completion queue
 * @param maxQpRdAtom {@code max_qp_rd_atom}: the largest IRD
 * @param maxQpInitRdAtom {@code max_qp_init_rd_atom}: the largest ORD
 * @param deviceCapFlags {@code device_cap_flags}
 * @param firmware {@code fw_ver}
 * @param portState {@code ibv_port_attr.state} (4: ACTIVE)
 * @param activeMtu {@code active_mtu} as the {@code ibv_mtu} enum (1: 256 ... 5: 4096)
 * @param maxMsgSize {@code max_msg_sz}: the largest message (0 when the device does not say)
 * @param linkLayer {@code link_layer} (1: InfiniBand, 2: Ethernet)
 * @param vendorId {@code vendor_id} (the PCI vendor of an RNIC; Linux siw reports 0x626d74, rxe 0xffffff)
 * @param maxMw {@code max_mw}: memory windows (0: none)
 * @param memoryWindows whether a type 2 memory window could be allocated on the device
 *     ({@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)} when the device reports windows): the provider then
 *     exposes memory to the peer through windows bound on the connection, which a peer's Send with
 *     Invalidate can invalidate
 */
public record DeviceAttributes(String name, TransportType transportType, long maxMrSize, int maxQpWr, int maxSge,
        int maxCqe, int maxQpRdAtom, int maxQpInitRdAtom, int deviceCapFlags, String firmware, int portState,
        int activeMtu, long maxMsgSize, int linkLayer, int vendorId, int maxMw, boolean memoryWindows) {

    /** {@code IBV_DEVICE_MEM_MGT_EXTENSIONS}: local invalidate and Send with Invalidate. */
    public static final int MEM_MGT_EXTENSIONS = VerbsConstants.DEVICE_MEM_MGT_EXTENSIONS;
    /** The {@code vendor_id} of Linux soft-iWARP ({@code SIW_VENDOR_ID}, "bmt"). */
    public static final int VENDOR_SIW = 0x626d74;
    /** The {@code vendor_id} of Linux soft-RoCE ({@code RXE_VENDOR_ID}). */
    public static final int VENDOR_RXE = 0xffffff;

    /** A device without memory windows (tests and backends that cannot tell). */
    public DeviceAttributes(String name, TransportType transportType, long maxMrSize, int maxQpWr, int maxSge,
            int maxCqe, int maxQpRdAtom, int maxQpInitRdAtom, int deviceCapFlags, String firmware, int portState,
            int activeMtu, long maxMsgSize, int linkLayer) {
        this(name, transportType, maxMrSize, maxQpWr, maxSge, maxCqe, maxQpRdAtom, maxQpInitRdAtom, deviceCapFlags,
                firmware, portState, activeMtu, maxMsgSize, linkLayer, 0, 0, false);
    }

    /** Whether the device reports the memory management extensions (local invalidate, Send with Invalidate). */
    public boolean memoryManagementExtensions() {
        return (deviceCapFlags & MEM_MGT_EXTENSIONS) != 0;
    }
    /** {@code IBV_PORT_ACTIVE}. */
    public static final int PORT_ACTIVE = 4;

    /** The {@code active_mtu} in bytes (256 << (mtu - 1)), 0 when unknown. */
    public int activeMtuBytes() {
        return activeMtu >= 1 && activeMtu <= 5 ? 128 << activeMtu : 0;
    }

    /** One line for operators. */
    public String describe() {
        return name + " (" + transportType + ", firmware " + (firmware.isEmpty() ? "?" : firmware) + ", port 1 "
                + (portState == PORT_ACTIVE ? "ACTIVE" : "state " + portState) + ", MTU " + activeMtuBytes()
                + "): max_qp_wr " + maxQpWr + ", max_cqe " + maxCqe + ", max_qp_rd_atom " + maxQpRdAtom
                + ", max_qp_init_rd_atom " + maxQpInitRdAtom + ", max_mr_size " + maxMrSize + ", max_msg_sz "
                + maxMsgSize + ", memory management extensions " + memoryManagementExtensions()
                + ", type 2 memory windows " + memoryWindows;
    }
}
