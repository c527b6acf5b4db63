package smbdirect.rdma.mock;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.WorkRequestType;

/**
 * One work completion a {@link RawPeer} saw.
 *
 * @param sequence position among everything the raw peer recorded (messages and completions), from 1
 * @param wrId the work request id the raw peer returned when posting
 * @param type the kind of work request
 * @param status its status
 * @param byteLength the completion's byte length
 */
public record RawCompletion(long sequence, long wrId, WorkRequestType type, CompletionStatus status, int byteLength) {
}
