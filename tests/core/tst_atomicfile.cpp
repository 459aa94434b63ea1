// SPDX-License-Identifier: MIT
// writeFileAtomically: regular files are replaced whole (or not at all), links are
// followed and kept, devices and FIFOs are written through and stay what they are.
#include "core/AtomicFile.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using splitscope::readWholeFile;
using splitscope::writeFileAtomically;

namespace {

std::string contents(const QString &path)
{
    std::string bytes;
    readWholeFile(path.toStdString(), bytes);
    return bytes;
}

void put(const QString &path, const std::string &bytes)
{
    QVERIFY(writeFileAtomically(path.toStdString(), bytes));
}

struct stat lstatOf(const QString &path)
{
    struct stat st {};
    ::lstat(path.toLocal8Bit().constData(), &st);
    return st;
}

// Names in `dir`, hidden ones included: a leftover temporary file shows here.
QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void replacesRegularFileWhole();
    void failureLeavesOldFile();
    void followsSymlinkAndKeepsIt();
    void createsTargetOfDanglingSymlink();
    void symlinkLoopIsAnError();
    void writesThroughCharacterDevice();
    void writesThroughFifo();
    void ownDescriptorIsWrittenInPlace();
    void directoryIsAnError();
    void emptyPathIsAnError();
};

void TestAtomicFile::replacesRegularFileWhole()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("out.txt");
    put(path, "old\n");
    QVERIFY(::chmod(path.toLocal8Bit().constData(), 0640) == 0);
    const ino_t oldInode = lstatOf(path).st_ino;
    std::string error;
    QVERIFY(writeFileAtomically(path.toStdString(), "new\n", &error));
    QCOMPARE(contents(path), std::string("new\n"));
    const struct stat st = lstatOf(path);
    QVERIFY(S_ISREG(st.st_mode));
    QVERIFY(st.st_ino != oldInode); // renamed over, not rewritten in place
    QCOMPARE(st.st_mode & 07777, mode_t(0640)); // the replaced file's permissions
    QCOMPARE(entries(dir.path()), QStringList({"out.txt"}));
}

void TestAtomicFile::failureLeavesOldFile()
{
    // A file size limit makes write() fail with EFBIG, even as root (for whom
    // permissions would not).
    QTemporaryDir dir;
    const QString path = dir.filePath("out.txt");
    put(path, "old\n");
    struct rlimit saved {};
    QVERIFY(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = saved;
    small.rlim_cur = 16;
    QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    std::string error;
    const bool written = writeFileAtomically(path.toStdString(), std::string(4096, 'x'), &error);
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previousHandler);
    QVERIFY(!written);
    // Named by the file asked for: the temporary file is gone by the time anyone reads this.
    QCOMPARE(error, "cannot write '" + path.toStdString() + "': " + std::strerror(EFBIG));
    QCOMPARE(contents(path), std::string("old\n"));
    QCOMPARE(entries(dir.path()), QStringList({"out.txt"})); // the temporary file is gone
}

void TestAtomicFile::followsSymlinkAndKeepsIt()
{
    // The link lives in one folder and points into another, relatively: the target is
    // replaced in its own folder, and the link still points at it.
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("links"));
    QVERIFY(QDir(dir.path()).mkpath("data"));
    const QString target = dir.filePath("data/keep.txt");
    const QString link = dir.filePath("links/link.txt");
    put(target, "old\n");
    QVERIFY(::symlink("../data/keep.txt", link.toLocal8Bit().constData()) == 0);
    std::string error;
    QVERIFY2(writeFileAtomically(link.toStdString(), "new\n", &error), error.c_str());
    QVERIFY(S_ISLNK(lstatOf(link).st_mode));
    QCOMPARE(QFile::symLinkTarget(link), QFileInfo(target).canonicalFilePath());
    QVERIFY(S_ISREG(lstatOf(target).st_mode));
    QCOMPARE(contents(target), std::string("new\n"));
    QCOMPARE(entries(dir.filePath("links")), QStringList({"link.txt"}));
    QCOMPARE(entries(dir.filePath("data")), QStringList({"keep.txt"}));
}

void TestAtomicFile::createsTargetOfDanglingSymlink()
{
    QTemporaryDir dir;
    const QString link = dir.filePath("link.txt");
    QVERIFY(::symlink("new.txt", link.toLocal8Bit().constData()) == 0);
    std::string error;
    QVERIFY2(writeFileAtomically(link.toStdString(), "made\n", &error), error.c_str());
    QVERIFY(S_ISLNK(lstatOf(link).st_mode));
    QCOMPARE(contents(dir.filePath("new.txt")), std::string("made\n"));
    QCOMPARE(entries(dir.path()), QStringList({"link.txt", "new.txt"}));
}

void TestAtomicFile::symlinkLoopIsAnError()
{
    QTemporaryDir dir;
    const QString a = dir.filePath("a");
    const QString b = dir.filePath("b");
    QVERIFY(::symlink("b", a.toLocal8Bit().constData()) == 0);
    QVERIFY(::symlink("a", b.toLocal8Bit().constData()) == 0);
    std::string error;
    QVERIFY(!writeFileAtomically(a.toStdString(), "x", &error));
    QVERIFY2(error.find("'" + a.toStdString() + "'") != std::string::npos, error.c_str());
    QVERIFY2(error.find(std::strerror(ELOOP)) != std::string::npos, error.c_str());
    QCOMPARE(entries(dir.path()), QStringList({"a", "b"}));
}

void TestAtomicFile::writesThroughCharacterDevice()
{
    // As root, a writer that replaced devices would replace /dev/null for the whole
    // machine, so root gets private nodes of the same devices (null: 1,3; full: 1,7);
    // anyone else cannot replace anything in /dev and uses the real ones.
    QTemporaryDir dir;
    QString null = QStringLiteral("/dev/null");
    QString full = QStringLiteral("/dev/full");
    if (::geteuid() == 0) {
        null = dir.filePath("null");
        full = dir.filePath("full");
        QVERIFY(::mknod(null.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 3)) == 0);
        QVERIFY(::mknod(full.toLocal8Bit().constData(), S_IFCHR | 0666, makedev(1, 7)) == 0);
    }
    std::string error;
    QVERIFY2(writeFileAtomically(null.toStdString(), "discarded\n", &error), error.c_str());
    QVERIFY(S_ISCHR(lstatOf(null).st_mode));
    // A device's own write error is reported, naming it.
    if (S_ISCHR(lstatOf(full).st_mode)) {
        QVERIFY(!writeFileAtomically(full.toStdString(), "x", &error));
        QCOMPARE(error, "cannot write '" + full.toStdString() + "': " + std::strerror(ENOSPC));
        QVERIFY(S_ISCHR(lstatOf(full).st_mode));
    }
    if (::geteuid() == 0)
        QCOMPARE(entries(dir.path()), QStringList({"full", "null"}));
}

void TestAtomicFile::writesThroughFifo()
{
    QTemporaryDir dir;
    const QString fifo = dir.filePath("pipe");
    QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
    // Open the reading end first, without blocking: the writer's open then finds a
    // reader, and the bytes fit the pipe's buffer, so nothing here can wait forever.
    const int reader = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK);
    QVERIFY(reader >= 0);
    std::string error;
    const bool written = writeFileAtomically(fifo.toStdString(), "through the pipe\n", &error);
    std::string received;
    char buffer[256];
    pollfd ready{reader, POLLIN, 0};
    while (::poll(&ready, 1, 5000) > 0) {
        const ssize_t n = ::read(reader, buffer, sizeof buffer);
        if (n <= 0)
            break; // 0: the writer closed its end
        received.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(reader);
    QVERIFY2(written, error.c_str());
    QCOMPARE(received, std::string("through the pipe\n"));
    QVERIFY(S_ISFIFO(lstatOf(fifo).st_mode));
    QCOMPARE(entries(dir.path()), QStringList({"pipe"}));
}

void TestAtomicFile::ownDescriptorIsWrittenInPlace()
{
    // `splitscope-cli ... --output /dev/stdout >> log`: the descriptor is written, so the
    // log keeps what it had and the new text is appended; the file is not replaced.
    QTemporaryDir dir;
    const QString path = dir.filePath("log.txt");
    put(path, "before\n");
    const ino_t inode = lstatOf(path).st_ino;
    const int fd = ::open(path.toLocal8Bit().constData(), O_WRONLY | O_APPEND | O_CLOEXEC);
    QVERIFY(fd >= 0);
    std::string error;
    QVERIFY2(writeFileAtomically("/proc/self/fd/" + std::to_string(fd), "one\n", &error), error.c_str());
    QVERIFY2(writeFileAtomically("/dev/fd/" + std::to_string(fd), "two\n", &error), error.c_str());
    ::close(fd);
    QCOMPARE(contents(path), std::string("before\none\ntwo\n"));
    QCOMPARE(lstatOf(path).st_ino, inode);
    QCOMPARE(entries(dir.path()), QStringList({"log.txt"}));
    // A descriptor that is not open is an error naming the path.
    QVERIFY(!writeFileAtomically("/dev/fd/987654", "x", &error));
    QVERIFY2(error.find("'/dev/fd/987654'") != std::string::npos, error.c_str());
}

void TestAtomicFile::directoryIsAnError()
{
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("sub"));
    const QString sub = dir.filePath("sub");
    std::string error;
    QVERIFY(!writeFileAtomically(sub.toStdString(), "x", &error));
    QCOMPARE(error, "cannot write '" + sub.toStdString() + "': " + std::strerror(EISDIR));
    QVERIFY(S_ISDIR(lstatOf(sub).st_mode));
    QCOMPARE(entries(dir.path()), QStringList({"sub"}));
}

void TestAtomicFile::emptyPathIsAnError()
{
    std::string error;
    QVERIFY(!writeFileAtomically("", "x", &error));
    QCOMPARE(error, std::string("cannot write '': ") + std::strerror(ENOENT));
}

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomicfile.moc"
