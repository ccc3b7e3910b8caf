package io.rafestore.internal.protocol.context;

import io.rafestore.CloudRole;
import io.rafestore.internal.cloud.AccountingCloud;
import io.rafestore.internal.observe.Observer;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.internal.protocol.selection.LatencyModel;
import io.rafestore.internal.protocol.selection.MeasuredCloud;
import io.rafestore.spi.CloudDriver;

/**
 * A configured cloud as the protocol sees it: its role, the raw driver (closed by the client if it
 * owns it) and the driver wrapped in accounting and latency measurement, which is the one the
 * protocol calls.
 */
public record Cloud(
    String id, CloudRole role, CloudDriver raw, AccountingCloud accounting, CloudDriver driver) {
  static Cloud of(Settings.CloudSetting setting, LatencyModel model, Observer observer) {
    AccountingCloud accounting =
        new AccountingCloud(setting.driver(), observer::nanoTime, observer::request);
    return new Cloud(
        setting.driver().id(),
        setting.role(),
        setting.driver(),
        accounting,
        new MeasuredCloud(accounting, model));
  }
}
