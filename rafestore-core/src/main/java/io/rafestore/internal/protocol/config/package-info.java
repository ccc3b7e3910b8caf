/**
 * The settings of one client, as the builder validated them ({@code Settings}), and the rules that
 * follow from them alone (whether a value is sent in parts). Described in design.md sections 5 and
 * 11.
 *
 * <p>Depends on no other protocol package. Internal; not exported.
 */
package io.rafestore.internal.protocol.config;
