package dev.sluice.app;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.core.spi.ContextAwareBase;
import dev.sluice.config.LoggingConfig;

/**
 * Logback's configuration until a command applies the configuration file's {@code logging:}: the
 * defaults (text, {@code info}) on standard error. Found by logback through {@code
 * META-INF/services}; it replaces logback's own fallback, which logs everything at {@code debug} to
 * standard output.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class DefaultLogging extends ContextAwareBase implements Configurator {

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        LogBackend.configure(context, LoggingConfig.defaults(), System.err); // SLF4J is still binding: use context
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
