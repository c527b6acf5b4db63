package smbdirect.rdma.mock;

/**
 * One message a {@link RawPeer} received.
 *
 * @param sequence position among everything the raw peer recorded (messages and completions), from 1
 * @param nanoTime {@link System#nanoTime()} when the completion was delivered
 * @param bytes the message exactly as it arrived; the array is shared by every call of
 *     {@link RawPeer#messages()}, do not modify it ({@link RawPeer#received()} returns copies)
 * @param invalidatedToken whether it came as a Send with Invalidate
 * @param token the invalidated token when {@code invalidatedToken}
 */
public record RawMessage(long sequence, long nanoTime, byte[] bytes, boolean invalidatedToken, int token) {
}
