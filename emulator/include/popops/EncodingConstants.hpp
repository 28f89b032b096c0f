#pragma once

// A label that takes no part in a loss or accuracy (popnn::calcLoss, calcAccuracy).
#define MASKED_LABEL_CODE 0xFFFFFFFFU
