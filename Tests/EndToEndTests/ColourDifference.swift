import Foundation

/// Colour difference as a viewer sees it, computed here independently of healthport: sRGB →
/// linear RGB → (a simulated colour vision deficiency) → clip → CIELAB (D65) → CIEDE2000.
///
/// The simulation is Machado, Oliveira and Fernandes (2009), "A Physiologically-based Model for
/// Simulation of Color Vision Deficiency", at severity 1.0: their published 3×3 matrices, applied
/// to linear RGB (the sRGB transfer function removed first, as colorspacious and DaltonLens do),
/// the result clipped to [0, 1]. CIELAB uses the sRGB primaries'
/// XYZ matrix (IEC 61966-2-1, to seven decimals) and its own white, so that #ffffff is L* 100, a* = b* = 0.
/// CIEDE2000 follows Sharma, Wu and Dalal (2005), checked against their Table 1 in the tests.
enum ColourDifference {
  enum Vision: String, CaseIterable, CustomStringConvertible, Sendable {
    case normal, protanopia, deuteranopia, tritanopia
    var description: String { rawValue }

    /// Machado et al. (2009), severity 1.0, rows act on linear (R, G, B).
    var matrix: [[Double]] {
      switch self {
      case .normal: return [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
      case .protanopia:
        return [
          [0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998],
        ]
      case .deuteranopia:
        return [
          [0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881],
        ]
      case .tritanopia:
        return [
          [1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900],
        ]
      }
    }
  }

  struct Lab: CustomStringConvertible {
    var l: Double
    var a: Double
    var b: Double
    var description: String { String(format: "L*%.2f a*%.2f b*%.2f", l, a, b) }
  }

  /// `#rrggbb` (either case) as three values in 0…1, or nil.
  static func rgb(_ hex: String) -> [Double]? {
    let digits = Array(hex.lowercased().utf8)
    guard digits.count == 7, digits[0] == UInt8(ascii: "#") else { return nil }
    var out: [Double] = []
    for index in stride(from: 1, to: 7, by: 2) {
      guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
      out.append(Double(byte) / 255)
    }
    return out
  }

  /// The colour `hex` as `vision` sees it, in CIELAB.
  static func lab(_ hex: String, _ vision: Vision) -> Lab? {
    guard let encoded = rgb(hex) else { return nil }
    let linear = encoded.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
    let seen = vision.matrix.map { row in min(1, max(0, zip(row, linear).map { $0 * $1 }.reduce(0, +))) }
    let toXYZ = [
      [0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041],
    ]
    let xyz = toXYZ.map { row in zip(row, seen).map { $0 * $1 }.reduce(0, +) }
    let white = toXYZ.map { $0.reduce(0, +) }
    let f = zip(xyz, white).map { value, reference -> Double in
      let t = value / reference
      return t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116
    }
    return Lab(l: 116 * f[1] - 16, a: 500 * (f[0] - f[1]), b: 200 * (f[1] - f[2]))
  }

  /// CIEDE2000 ΔE00 (kL = kC = kH = 1), Sharma et al. (2005) equations 1–17.
  static func ciede2000(_ one: Lab, _ two: Lab) -> Double {
    func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
    func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
    let chromaMean = (hypot(one.a, one.b) + hypot(two.a, two.b)) / 2
    let g = 0.5 * (1 - sqrt(pow(chromaMean, 7) / (pow(chromaMean, 7) + pow(25, 7))))
    let a1 = (1 + g) * one.a
    let a2 = (1 + g) * two.a
    let c1 = hypot(a1, one.b)
    let c2 = hypot(a2, two.b)
    func hue(_ b: Double, _ a: Double) -> Double {
      if a == 0 && b == 0 { return 0 }
      let angle = degrees(atan2(b, a))
      return angle < 0 ? angle + 360 : angle
    }
    let h1 = hue(one.b, a1)
    let h2 = hue(two.b, a2)
    let deltaL = two.l - one.l
    let deltaC = c2 - c1
    var deltaH = 0.0
    if c1 * c2 != 0 {
      deltaH = h2 - h1
      if deltaH > 180 { deltaH -= 360 } else if deltaH < -180 { deltaH += 360 }
    }
    let deltaBigH = 2 * sqrt(c1 * c2) * sin(radians(deltaH / 2))
    let lMean = (one.l + two.l) / 2
    let cMean = (c1 + c2) / 2
    var hMean = h1 + h2
    if c1 * c2 != 0 {
      if abs(h1 - h2) <= 180 {
        hMean /= 2
      } else {
        hMean = hMean < 360 ? (hMean + 360) / 2 : (hMean - 360) / 2
      }
    }
    let t =
      1 - 0.17 * cos(radians(hMean - 30)) + 0.24 * cos(radians(2 * hMean)) + 0.32 * cos(radians(3 * hMean + 6))
      - 0.20 * cos(radians(4 * hMean - 63))
    let deltaTheta = 30 * exp(-pow((hMean - 275) / 25, 2))
    let rc = 2 * sqrt(pow(cMean, 7) / (pow(cMean, 7) + pow(25, 7)))
    let sl = 1 + 0.015 * pow(lMean - 50, 2) / sqrt(20 + pow(lMean - 50, 2))
    let sc = 1 + 0.045 * cMean
    let sh = 1 + 0.015 * cMean * t
    let rt = -sin(radians(2 * deltaTheta)) * rc
    let l = deltaL / sl
    let c = deltaC / sc
    let h = deltaBigH / sh
    return sqrt(l * l + c * c + h * h + rt * c * h)
  }

  /// Sharma, Wu and Dalal (2005), Table 1: all 34 pairs (L*, a*, b* twice) and their ΔE00, to four
  /// decimals. They cross every branch of the formula (hue wrap-around, a zero chroma, the
  /// rotation term).
  static let sharmaPairs: [(Lab, Lab, Double)] = [
    [50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425],
    [50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615],
    [50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412],
    [50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000],
    [50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669],
    [50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195],
    [50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045],
    [50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461],
    [50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065],
    [50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492],
    [50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977],
    [50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030],
    [50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000],
    [50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000],
    [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
    [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630],
    [61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731],
    [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
    [22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373],
    [36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
    [90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441],
    [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
    [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
    [2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082],
  ].map { (Lab(l: $0[0], a: $0[1], b: $0[2]), Lab(l: $0[3], a: $0[4], b: $0[5]), $0[6]) }
}
