package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;

/**
 * What one request is answered with: a status and a body (position 0 to limit), and how the
 * message carrying it is sent. {@link #NONE} is "no response at all" (CANCEL, [MS-SMB2] 3.3.5.16).
 *
 * @param status the header's Status
 * @param body the response body, little-endian, read from position 0 to its limit
 * @param signingKey sign this response with it ([MS-SMB2] 3.3.4.1.1), or {@code null}
 * @param invalidateToken the client's token to invalidate with the send, when {@code invalidate}
 * @param invalidate whether to send with invalidate (an SMB2_CHANNEL_RDMA_V1_INVALIDATE request)
 * @param onEncoded told of the response's final bytes (header included, signed if signed) before
 *     they are sent: the pre-authentication hash of NEGOTIATE and SESSION_SETUP; or {@code null}
 */
public record Smb2Response(int status, ByteBuffer body, byte[] signingKey, int invalidateToken, boolean invalidate,
        Consumer<ByteBuffer> onEncoded) {

    /** CANCEL: no response. */
    public static final Smb2Response NONE = new Smb2Response(0, null, null, 0, false, null);

    public static Smb2Response of(int status, ByteBuffer body) {
        return new Smb2Response(status, body, null, 0, false, null);
    }

    public static Smb2Response success(ByteBuffer body) {
        return of(NtStatus.SUCCESS, body);
    }

    /** The error response ([MS-SMB2] 2.2.2): StructureSize 9, no error contexts, ByteCount 0, one zero byte. */
    public static Smb2Response error(int status) {
        ByteBuffer b = body(9);
        b.putShort(0, (short) 9);
        return of(status, b);
    }


    public Smb2Response withSigningKey(byte[] key) {
        return new Smb2Response(status, body, key, invalidateToken, invalidate, onEncoded);
    }

    public Smb2Response withInvalidate(int token) {
        return new Smb2Response(status, body, signingKey, token, true, onEncoded);
    }

    public Smb2Response withOnEncoded(Consumer<ByteBuffer> hook) {
        return new Smb2Response(status, body, signingKey, invalidateToken, invalidate, hook);
    }

    /** A zeroed little-endian body of {@code size} bytes (position 0, limit size). */
    public static ByteBuffer body(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
