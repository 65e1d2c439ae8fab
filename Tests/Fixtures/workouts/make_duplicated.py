#!/usr/bin/env python3
"""Writes duplicated.xml: the shape of a real iOS 14 export whose watch maker's app synced its
workouts into Health again and again. 18 runs, 103.1 km, each written 2 to 7 times (46 Workouts,
272.9 km), the copies identical but for creationDate, the device's address and a sync-version
metadata entry, and written later in the document, as later syncs append them. No run has
heart-rate statistics (iOS 14); the first one's HeartRate records are there, the 150 written three
times: 155 bpm on average counted once, 152.5 as written.

Run: python3 make_duplicated.py > duplicated.xml"""

COPIES = [2, 2, 2, 2, 2, 2, 3, 3, 3, 2, 2, 3, 7, 2, 3, 2, 2, 2]
TENTHS_KM = [44, 67, 39, 34, 40, 60, 54, 31, 82, 81, 49, 89, 68, 59, 71, 57, 85, 21]

HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<!-- HealthKit Export Version: 11 -->
<HealthData locale="en_GB">
 <ExportDate value="2021-02-01 09:00:00 +0100"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexMale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
"""
DEVICE = "&lt;&lt;HKDevice: 0x2839{:05x}&gt;, name:Vantage M, manufacturer:Polar, model:Vantage M, hardware:1, software:3.2&gt;"


def run(day, copy):
    km = TENTHS_KM[day] / 10
    minutes = round(km * 5.5, 4)
    start = f"2021-01-{day + 1:02d} 07:00:00 +0100"
    end_minute = int(minutes)
    end_second = round((minutes - end_minute) * 60)
    end = f"2021-01-{day + 1:02d} {7 + end_minute // 60:02d}:{end_minute % 60:02d}:{end_second:02d} +0100"
    created = f"2021-01-{day + 1 + copy:02d} 20:{10 + copy:02d}:00 +0100"
    return (
        f' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="{minutes}" durationUnit="min"'
        f' totalDistance="{km}" totalDistanceUnit="km" totalEnergyBurned="{round(km * 62)}"'
        f' totalEnergyBurnedUnit="kcal" sourceName="Polar Flow" sourceVersion="5.9"'
        f' device="{DEVICE.format(day * 16 + copy)}" creationDate="{created}" startDate="{start}" endDate="{end}">\n'
        f'  <MetadataEntry key="HKMetadataKeySyncVersion" value="{copy + 1}"/>\n'
        " </Workout>\n"
    )


def heart_rates():
    lines = []
    for value, copies, second in [(150, 3, 10), (160, 1, 20)]:
        for copy in range(copies):
            lines.append(
                f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Polar Flow" sourceVersion="5.9"'
                f' device="{DEVICE.format(copy)}" unit="count/min" creationDate="2021-01-0{2 + copy} 20:10:00 +0100"'
                f' startDate="2021-01-01 07:00:{second} +0100" endDate="2021-01-01 07:00:{second} +0100" value="{value}"/>\n'
            )
    return "".join(lines)


def main():
    out = [HEAD, heart_rates()]
    for copy in range(max(COPIES)):
        out += [run(day, copy) for day in range(len(COPIES)) if copy < COPIES[day]]
    out.append("</HealthData>\n")
    print("".join(out), end="")


main()
