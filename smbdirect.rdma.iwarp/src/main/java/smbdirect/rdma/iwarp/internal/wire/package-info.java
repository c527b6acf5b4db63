/**
 * The iWARP wire codecs: MPA connection setup frames and FPDU framing (RFC 5044, RFC 6581), DDP
 * segment headers (RFC 5041), RDMAP opcodes, Read Request and Terminate (RFC 5040). Static,
 * allocation-free encoders and decoders over a {@link java.nio.ByteBuffer} at an absolute offset,
 * big-endian whatever the buffer's order (the MPA CRC alone is least-significant byte first);
 * position and limit are never changed. Decoders accept any content; only offsets outside a
 * buffer's limit throw ({@link java.lang.IndexOutOfBoundsException}).
 */
package smbdirect.rdma.iwarp.internal.wire;
