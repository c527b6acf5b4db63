/**
 * The transport's health: an evaluation of the runtime DTO (provider present, listeners bound,
 * credit starvation, recent negotiation failures), offered as a Felix Health Check when the
 * Health Check API is present and shown on the Web Console status page.
 */
package smbdirect.ops.health;
