/** The SMB2 protocol ([MS-SMB2]): header and command codecs, connection, session and tree state, dispatch, RDMA channels. */
package smbdirect.example.fileserver.internal.smb2;
