// Package testbrowser starts the headless Chromium that browser tests
// drive with chromedp (the playground, the replay report), installed by
// scripts/install-chromium.sh. For tests only.
package testbrowser
