/**
 * An SMB2 client for the file server's tests, written from [MS-SMB2] and [MS-NLMP] apart from
 * the server's code so that the tests judge the server rather than agree with it.
 *
 * <p>{@link smbdirect.example.fileserver.client.Smb2TestClient} drives one SMB Direct connection:
 * it keeps MessageIds and credits, matches responses to requests (several may be outstanding,
 * compounded or not), checks every response header and body size, verifies signed responses, and
 * moves READ and WRITE data inline or through the RDMA channels over buffers it registers.
 * {@link smbdirect.example.fileserver.client.Smb2} writes the request bodies (and lets a test
 * damage any field), {@link smbdirect.example.fileserver.client.Response} reads the responses,
 * {@link smbdirect.example.fileserver.client.Ntlmv2} and
 * {@link smbdirect.example.fileserver.client.Smb3Signing} compute the logon and the keys,
 * {@link smbdirect.example.fileserver.client.Spnego} reads and writes the SPNEGO tokens, and
 * {@link smbdirect.example.fileserver.client.Status} names the NTSTATUS values the tests expect.
 */
package smbdirect.example.fileserver.client;
