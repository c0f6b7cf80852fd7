import Foundation
import PipelineTesting

/// Where a browser test leaves its screenshots: `.build/artifacts/<backend>/`. One folder
/// per backend, because a test's SQLite and PostgreSQL cases run at the same time and would
/// otherwise remove or overwrite each other's files.
enum BrowserArtifacts {
    static func directory(_ backend: TestBackend) throws -> String {
        let path = FileManager.default.currentDirectoryPath + "/.build/artifacts/\(backend.rawValue)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
