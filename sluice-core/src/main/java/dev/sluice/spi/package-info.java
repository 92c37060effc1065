/**
 * The policy SPI: a team's own inbound policy, in a jar on the class path, named in a route's
 * {@code filters} as {@code - custom: {policy: NAME, settings: {..}}} (docs/CONFIG.md, "custom").
 *
 * <pre>
 *   META-INF/services/dev.sluice.spi.PolicyFactory ──► PolicyFactory.name() "tenant"
 *   routes[i].filters[j].custom.settings ──► PolicySettings ──► PolicyFactory.create ──► InboundPolicy
 *   InboundPolicy.admit(Inbound) ──► Decision (Proceed / Reject / Answer / Pending), run by every engine
 * </pre>
 *
 * <p>A policy is given what the built-in ones are: the request view {@link
 * dev.sluice.policy.InboundPolicy.Inbound} and the sealed {@link dev.sluice.policy.Decision}, with
 * {@link dev.sluice.policy.UpstreamEdits} and {@link dev.sluice.policy.ResponseEdits} for what its
 * upstream requests and responses carry.
 *
 * <p><b>Stability.</b> The types of this package, and the five types of {@code dev.sluice.policy} just
 * named, are the published surface: within a 0.x minor version they change only by addition (a new
 * default method, a new factory method); a change that breaks a policy is named in the release notes.
 * Everything else in {@code dev.sluice.*} is the gateway's own and may change in any version.
 */
package dev.sluice.spi;
