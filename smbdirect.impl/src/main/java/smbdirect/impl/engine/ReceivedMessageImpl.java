package smbdirect.impl.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import smbdirect.api.ReceivedMessage;

/**
 * The reusable {@link ReceivedMessage} of one connection: valid only during
 * {@link smbdirect.api.ConnectionHandler#onMessage}. Not thread-safe: owned by the serial context.
 */
final class ReceivedMessageImpl implements ReceivedMessage {

    private ByteBuffer payload;
    private int length;
    private boolean hasInvalidatedToken;
    private int invalidatedToken;

    void set(ByteBuffer payload, int length, boolean hasInvalidatedToken, int invalidatedToken) {
        this.payload = payload.order(ByteOrder.LITTLE_ENDIAN); // SMB2's byte order (the view is ours)
        this.length = length;
        this.hasInvalidatedToken = hasInvalidatedToken;
        this.invalidatedToken = invalidatedToken;
    }

    @Override
    public ByteBuffer payload() {
        return payload;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public boolean hasInvalidatedToken() {
        return hasInvalidatedToken;
    }

    @Override
    public int invalidatedToken() {
        return invalidatedToken;
    }
}
