import Testing
@testable import OpenMLKitVision

@Test func moduleLinks() { _ = OpenMLKitVision.self }
