package smbdirect.rdma.iwarp.internal.wire;

/**
 * The Layer, Error Type and Error Code of a Terminate message: RDMAP errors (RFC 5040 §7.2), DDP
 * errors (RFC 5041 §7.2) and LLP (MPA) errors (RFC 5044 §8, RFC 6581 §7), with the names Wireshark
 * uses. Immutable value.
 *
 * @param layer 0 RDMAP, 1 DDP, 2 LLP (4 bits)
 * @param errorType the layer's error type (4 bits)
 * @param errorCode the error code (8 bits)
 */
public record TerminateError(int layer, int errorType, int errorCode) {

    public static final int LAYER_RDMAP = 0;
    public static final int LAYER_DDP = 1;
    public static final int LAYER_LLP = 2;

    public static final int RDMAP_LOCAL_CATASTROPHIC = 0;
    public static final int RDMAP_REMOTE_PROTECTION = 1;
    public static final int RDMAP_REMOTE_OPERATION = 2;
    public static final int DDP_LOCAL_CATASTROPHIC = 0;
    public static final int DDP_TAGGED = 1;
    public static final int DDP_UNTAGGED = 2;
    public static final int DDP_RESERVED_FOR_LLP = 3;
    public static final int LLP_MPA = 0;

    /** RDMAP local catastrophic error (the local side failed; RFC 5040 §7.2). */
    public static final TerminateError LOCAL_CATASTROPHIC = new TerminateError(LAYER_RDMAP, RDMAP_LOCAL_CATASTROPHIC, 0xFF);
    public static final TerminateError RDMAP_INVALID_STAG = new TerminateError(LAYER_RDMAP, RDMAP_REMOTE_PROTECTION, 0x00);
    public static final TerminateError RDMAP_BASE_BOUNDS = new TerminateError(LAYER_RDMAP, RDMAP_REMOTE_PROTECTION, 0x01);
    public static final TerminateError RDMAP_ACCESS_RIGHTS = new TerminateError(LAYER_RDMAP, RDMAP_REMOTE_PROTECTION, 0x02);
    public static final TerminateError RDMAP_TO_WRAP = new TerminateError(LAYER_RDMAP, RDMAP_REMOTE_PROTECTION, 0x04);
    public static final TerminateError RDMAP_INVALID_VERSION = new TerminateError(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, 0x05);
    public static final TerminateError RDMAP_UNEXPECTED_OPCODE = new TerminateError(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, 0x06);
    public static final TerminateError RDMAP_CATASTROPHIC_STREAM = new TerminateError(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, 0x07);
    public static final TerminateError RDMAP_CANNOT_INVALIDATE = new TerminateError(LAYER_RDMAP, RDMAP_REMOTE_OPERATION, 0x09);
    public static final TerminateError DDP_CATASTROPHIC = new TerminateError(LAYER_DDP, DDP_LOCAL_CATASTROPHIC, 0x00);
    public static final TerminateError DDP_INVALID_STAG = new TerminateError(LAYER_DDP, DDP_TAGGED, 0x00);
    public static final TerminateError DDP_BASE_BOUNDS = new TerminateError(LAYER_DDP, DDP_TAGGED, 0x01);
    public static final TerminateError DDP_TO_WRAP = new TerminateError(LAYER_DDP, DDP_TAGGED, 0x03);
    public static final TerminateError DDP_TAGGED_VERSION = new TerminateError(LAYER_DDP, DDP_TAGGED, 0x04);
    public static final TerminateError DDP_INVALID_QN = new TerminateError(LAYER_DDP, DDP_UNTAGGED, 0x01);
    public static final TerminateError DDP_NO_BUFFER = new TerminateError(LAYER_DDP, DDP_UNTAGGED, 0x02);
    public static final TerminateError DDP_INVALID_MSN = new TerminateError(LAYER_DDP, DDP_UNTAGGED, 0x03);
    public static final TerminateError DDP_INVALID_MO = new TerminateError(LAYER_DDP, DDP_UNTAGGED, 0x04);
    public static final TerminateError DDP_MESSAGE_TOO_LONG = new TerminateError(LAYER_DDP, DDP_UNTAGGED, 0x05);
    public static final TerminateError DDP_UNTAGGED_VERSION = new TerminateError(LAYER_DDP, DDP_UNTAGGED, 0x06);
    public static final TerminateError MPA_CRC = new TerminateError(LAYER_LLP, LLP_MPA, 0x02);
    public static final TerminateError MPA_INVALID_FRAME = new TerminateError(LAYER_LLP, LLP_MPA, 0x04);
    public static final TerminateError MPA_INSUFFICIENT_IRD = new TerminateError(LAYER_LLP, LLP_MPA, 0x06);
    public static final TerminateError MPA_NO_MATCHING_RTR = new TerminateError(LAYER_LLP, LLP_MPA, 0x07);

    public TerminateError {
        if (layer < 0 || layer > 15 || errorType < 0 || errorType > 15 || errorCode < 0 || errorCode > 255) {
            throw new IllegalArgumentException("layer " + layer + ", type " + errorType + ", code " + errorCode
                    + " do not fit 4/4/8 bits");
        }
    }

    /** Whether layer, type and code are a combination the RFCs define. */
    public boolean isDefined() {
        return switch (layer) {
            case LAYER_RDMAP -> switch (errorType) {
                case RDMAP_LOCAL_CATASTROPHIC -> true;
                case RDMAP_REMOTE_PROTECTION -> errorCode <= 0x04 || errorCode == 0x09 || errorCode == 0xFF;
                case RDMAP_REMOTE_OPERATION -> errorCode >= 0x05 && errorCode <= 0x09 || errorCode == 0xFF;
                default -> false;
            };
            case LAYER_DDP -> switch (errorType) {
                case DDP_LOCAL_CATASTROPHIC, DDP_RESERVED_FOR_LLP -> true;
                case DDP_TAGGED -> errorCode <= 0x04;
                case DDP_UNTAGGED -> errorCode >= 0x01 && errorCode <= 0x06;
                default -> false;
            };
            case LAYER_LLP -> errorType == LLP_MPA && errorCode >= 0x01 && errorCode <= 0x07;
            default -> false;
        };
    }

    public String layerName() {
        return switch (layer) {
            case LAYER_RDMAP -> "RDMAP";
            case LAYER_DDP -> "DDP";
            case LAYER_LLP -> "LLP";
            default -> "layer " + layer;
        };
    }

    public String typeName() {
        return switch (layer) {
            case LAYER_RDMAP -> switch (errorType) {
                case RDMAP_LOCAL_CATASTROPHIC -> "Local Catastrophic Error";
                case RDMAP_REMOTE_PROTECTION -> "Remote Protection Error";
                case RDMAP_REMOTE_OPERATION -> "Remote Operation Error";
                default -> "type " + errorType;
            };
            case LAYER_DDP -> switch (errorType) {
                case DDP_LOCAL_CATASTROPHIC -> "Local Catastrophic Error";
                case DDP_TAGGED -> "Tagged Buffer Error";
                case DDP_UNTAGGED -> "Untagged Buffer Error";
                case DDP_RESERVED_FOR_LLP -> "Reserved for the use by the LLP";
                default -> "type " + errorType;
            };
            case LAYER_LLP -> errorType == LLP_MPA ? "MPA Error" : "type " + errorType;
            default -> "type " + errorType;
        };
    }

    public String codeName() {
        if (layer == LAYER_RDMAP) {
            return switch (errorCode) {
                case 0x00 -> "Invalid STag";
                case 0x01 -> "Base or bounds violation";
                case 0x02 -> "Access rights violation";
                case 0x03 -> "STag not associated with RDMAP Stream";
                case 0x04 -> "TO wrap";
                case 0x05 -> "Invalid RDMAP version";
                case 0x06 -> "Unexpected OpCode";
                case 0x07 -> "Catastrophic error, localized to RDMAP Stream";
                case 0x08 -> "Catastrophic error, global";
                case 0x09 -> "STag cannot be Invalidated";
                case 0xFF -> "Unspecific Error";
                default -> "unknown code";
            };
        }
        if (layer == LAYER_DDP && errorType == DDP_TAGGED) {
            return switch (errorCode) {
                case 0x00 -> "Invalid STag";
                case 0x01 -> "Base or bounds violation";
                case 0x02 -> "STag not associated with DDP Stream";
                case 0x03 -> "TO wrap";
                case 0x04 -> "Invalid DDP version";
                default -> "unknown code";
            };
        }
        if (layer == LAYER_DDP && errorType == DDP_UNTAGGED) {
            return switch (errorCode) {
                case 0x01 -> "Invalid QN";
                case 0x02 -> "Invalid MSN - no buffer available";
                case 0x03 -> "Invalid MSN - MSN range is not valid";
                case 0x04 -> "Invalid MO";
                case 0x05 -> "DDP Message too long for available buffer";
                case 0x06 -> "Invalid DDP version";
                default -> "unknown code";
            };
        }
        if (layer == LAYER_LLP && errorType == LLP_MPA) {
            return switch (errorCode) {
                case 0x01 -> "TCP connection closed, terminated or lost";
                case 0x02 -> "MPA CRC Error";
                case 0x03 -> "MPA Marker and ULPDU Length field mismatch";
                case 0x04 -> "Invalid MPA Request Frame or MPA Response Frame";
                case 0x05 -> "Local Catastrophic Error";
                case 0x06 -> "Insufficient IRD Resources";
                case 0x07 -> "No Matching RTR Option";
                default -> "unknown code";
            };
        }
        return "unspecified";
    }

    /** The RFC section that defines the layer's codes. */
    public String rfc() {
        return switch (layer) {
            case LAYER_RDMAP -> "RFC 5040 §7.2";
            case LAYER_DDP -> "RFC 5041 §7.2";
            case LAYER_LLP -> errorCode >= 0x05 ? "RFC 6581 §7" : "RFC 5044 §8";
            default -> "RFC 5040 §4.8";
        };
    }

    @Override
    public String toString() {
        return layerName() + " / " + typeName() + " / " + String.format("0x%02x", errorCode) + " " + codeName()
                + " (" + rfc() + ")";
    }
}
