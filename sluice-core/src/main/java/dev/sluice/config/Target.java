package dev.sluice.config;

/**
 * Where a matched request goes: one upstream ({@link ProxyTarget}), several ({@link ComposeTarget}),
 * or none: the gateway answers itself ({@link AnswerTarget}).
 */
public sealed interface Target permits ProxyTarget, ComposeTarget, AnswerTarget {}
