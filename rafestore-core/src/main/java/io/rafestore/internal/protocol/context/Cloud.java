package io.rafestore.internal.protocol.context;

import io.rafestore.CloudRequest;
import io.rafestore.CloudRole;
import io.rafestore.internal.cloud.AccountingCloud;
import io.rafestore.internal.observe.Observer;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.internal.protocol.fairness.Tenancy;
import io.rafestore.internal.protocol.fairness.TenantDoor;
import io.rafestore.internal.protocol.selection.LatencyModel;
import io.rafestore.internal.protocol.selection.MeasuredCloud;
import io.rafestore.spi.CloudDriver;

/**
 * A configured cloud as the protocol sees it: its role, the raw driver (closed by the client if it
 * owns it) and the driver wrapped in accounting and latency measurement, which is the one the
 * protocol calls (under a tenant's door when fairness is on, design.md section 6).
 */
public record Cloud(
    String id, CloudRole role, CloudDriver raw, AccountingCloud accounting, CloudDriver driver) {
  static Cloud of(
      Settings.CloudSetting setting, LatencyModel model, Observer observer, Tenancy tenancy) {
    AccountingCloud accounting =
        new AccountingCloud(
            setting.driver(),
            observer::nanoTime,
            r -> {
              tenancy.request(r);
              observer.request(r);
            });
    CloudDriver measured = new MeasuredCloud(accounting, model);
    // With fairness on, the door (the cloud's fair queue) sits above the measurement, so the
    // latency model never counts time spent queued; off, nothing is added.
    return new Cloud(
        setting.driver().id(),
        setting.role(),
        setting.driver(),
        accounting,
        tenancy.enabled() ? TenantDoor.of(measured, tenancy, CloudRequest.DEFAULT_TENANT) : measured);
  }
}
