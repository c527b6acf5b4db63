/** Logon: NTLMv2 ([MS-NLMP]) raw or in SPNEGO, guest; SMB 3.x key derivation and signing. */
package smbdirect.example.fileserver.internal.auth;
