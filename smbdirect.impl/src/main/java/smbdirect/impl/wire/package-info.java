/**
 * SMB Direct wire codecs ([MS-SMBD] section 2): static, allocation-free encoders, decoders and
 * receive checks over a {@link java.nio.ByteBuffer} at an absolute offset. Little-endian on the
 * wire whatever the buffer's byte order (through {@code Le}), except the big-endian IRD/ORD header
 * of 6.1 ({@link smbdirect.impl.wire.IrdOrdHeader}); position and limit are never changed. Receive checks
 * return {@code null} or a {@link smbdirect.impl.wire.Violation} naming the rule, field and
 * value.
 */
package smbdirect.impl.wire;
