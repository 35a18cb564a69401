// SPDX-License-Identifier: Apache-2.0
// What a Qt 6 program sees of the network: the backend QNetworkInformation loads for
// Reachability, then one JSON line per reachability change, as a Qt application would
// follow it. Without NetworkManager Qt picks its `glib` plug-in, which asks
// g_network_monitor_get_default(), and so, with the module installed, pathd.
//
//   {"event":"backend","backend":"glib","captivePortalSupported":true}
//   {"event":"reachability","reachability":"Online"}
//
// It exits 0 when its standard input ends, 1 when no backend loads.
// Built by `make interop` (g++, pkg-config Qt6Network); run by the kernel tests.

#include <QCoreApplication>
#include <QMetaEnum>
#include <QNetworkInformation>
#include <QSocketNotifier>

#include <cstdio>
#include <unistd.h>

namespace {

void printLine(const QByteArray &line)
{
    std::fwrite(line.constData(), 1, size_t(line.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

QByteArray reachabilityName(QNetworkInformation::Reachability reachability)
{
    return QMetaEnum::fromType<QNetworkInformation::Reachability>().valueToKey(int(reachability));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication application(argc, argv);

    if (!QNetworkInformation::loadBackendByFeatures(QNetworkInformation::Feature::Reachability)) {
        std::fprintf(stderr, "qt-reachability: no backend supports Reachability (available: %s)\n",
                     qPrintable(QNetworkInformation::availableBackends().join(QLatin1Char(','))));
        return 1;
    }
    QNetworkInformation *information = QNetworkInformation::instance();
    const bool captivePortal = information->supports(QNetworkInformation::Feature::CaptivePortal);
    printLine("{\"event\":\"backend\",\"backend\":\"" + information->backendName().toUtf8()
              + "\",\"captivePortalSupported\":" + (captivePortal ? "true" : "false") + "}");
    printLine("{\"event\":\"reachability\",\"reachability\":\""
              + reachabilityName(information->reachability()) + "\"}");

    QObject::connect(information, &QNetworkInformation::reachabilityChanged,
                     [](QNetworkInformation::Reachability reachability) {
                         printLine("{\"event\":\"reachability\",\"reachability\":\""
                                   + reachabilityName(reachability) + "\"}");
                     });
    QObject::connect(information, &QNetworkInformation::isBehindCaptivePortalChanged, [](bool behind) {
        printLine(QByteArray("{\"event\":\"captivePortal\",\"behind\":") + (behind ? "true" : "false") + "}");
    });

    // The test ends the program by closing its input; a read error ends it too.
    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QObject::connect(&input, &QSocketNotifier::activated, [&application, &input]() {
        char buffer[256];
        if (read(STDIN_FILENO, buffer, sizeof buffer) <= 0) {
            input.setEnabled(false);
            application.quit();
        }
    });
    return application.exec();
}
